"""The ODS facts of every strata dialect, keyed by dialect name (generated from `dialects/*.td`)."""

from strata.dialects import _probe_ods_gen, _strata_ods_gen

DIALECTS = {module.DIALECT["name"]: module.DIALECT for module in (_strata_ods_gen, _probe_ods_gen)}

OPS = {name: op for dialect in DIALECTS.values() for name, op in dialect["ops"].items()}

CONSTRAINTS = {
    name: constraint for dialect in DIALECTS.values() for name, constraint in dialect["constraints"].items()
}
