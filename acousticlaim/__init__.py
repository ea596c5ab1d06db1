"""AcoustiClaim: score the numeric acoustic claims of speech language models against their instruments."""

__version__ = "0.1.0"
