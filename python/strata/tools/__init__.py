"""Entry points of strata's command-line tools; each module's `main()` returns the exit code."""
