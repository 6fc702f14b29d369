"""A small zoo of PyTorch models that strata's tests, benchmarks and demo compile.

Each module builds one model family from a frozen config dataclass (random weights, seeded by the
caller through `torch.manual_seed`) and gives example inputs for it, so every user of the zoo
compiles exactly the same shapes. Configs default to sizes small enough to compile in seconds on
two CPU cores; pass a bigger config for benchmarks.
"""
