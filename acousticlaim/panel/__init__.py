"""AcoustiClaim panel."""
