"""AcoustiClaim claims."""
