"""The command line: options, config file, terminal output, progress bar."""
