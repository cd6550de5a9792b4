"""URL checks: one URL requested and judged; the stage that checks them all."""
