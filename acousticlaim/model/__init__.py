"""AcoustiClaim model."""
