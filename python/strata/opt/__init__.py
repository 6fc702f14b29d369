"""The machinery behind `strata-opt`: input splitting, diagnostic verification, the driver."""
