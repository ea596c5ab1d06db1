"""AcoustiClaim instruments: the readers that define the ten scored references (``SPEC.md`` §1).

* :mod:`.praat` — F0 mean/s.d., jitter, shimmer, HNR (parselmouth, each Praat object built once);
* :mod:`.srmr` — SRMR (Falk et al. 2010) following SRMRpy, fast and normal modes;
* :mod:`.snr` — the mixing SNR from stems, and the frame-energy dynamic range for AMI;
* :mod:`.timing` — de Jong & Wempe syllable nuclei, speaking/articulation rate, pauses;
* :mod:`.overlap` — Silero VAD overlap windows on the two separated stems;
* :mod:`.loudness`, :mod:`.contour` — LUFS and the F0 contour summary for the ``measure`` blueprint;
* :mod:`.references` — the `references` stage; :mod:`.measure`, :mod:`.check` — the CLI commands.

Every reader returns :class:`~acousticlaim.instruments.reading.Reading` values: a number, or an
explicit undefined with the reason.
"""

from acousticlaim.instruments.reading import Reading

__all__ = ["Reading"]
