"""AcoustiClaim selective."""
