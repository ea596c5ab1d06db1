"""AcoustiClaim scoring."""
