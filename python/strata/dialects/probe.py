"""Python builders for the `probe` dialect's ops (generated from dialects/probe.td)."""

from torch_mlir import ir

from strata.dialects._probe_ops_gen import *  # noqa: F401,F403


@ir.register_attribute_builder("Probe_NameAttr")
def _name_attr(value, context):
    return ir.StringAttr.get(str(value), context=context)
