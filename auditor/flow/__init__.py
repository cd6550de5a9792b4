"""The run: one audit, walked and published; the wings it folds over."""
