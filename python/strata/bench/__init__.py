"""strata-bench: strata against PyTorch eager, torch.compile, ONNX Runtime and plain IREE.

One run compiles every selected case with every engine, then times the engines interleaved in one
process (each repetition visits every engine, in a rotating order) so that machine noise, thermal
state and other tenants hit all engines alike. `suite` says what is measured, `engines` how each
engine turns a PyTorch module into a callable, `runner` how it is timed, `report` and `plot` what
a person or a machine reads afterwards.
"""
