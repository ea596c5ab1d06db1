"""AcoustiClaim instruments."""
