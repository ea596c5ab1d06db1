"""Withholding and the decomposition diagnostic (SPEC §6; the paper's Fig. 2 and Fig. 3).

* :mod:`.slots` — the slot table (training seed × test clip × scored quantity) from readout B, the matched
  ridge, the references and the manifest;
* :mod:`.calibration` — per-quantity thresholds ``tau_q`` on a calibration half, applied to the evaluation half;
* :mod:`.risk` — selective risk, the random selector, risk–coverage curves and AURC;
* :mod:`.selectors` — the confidence head, the random selector and the out-of-fold residual ridge, compared;
* :mod:`.withholding` — the ``calibrate`` stage's computation and outputs;
* :mod:`.frame_profiles` — the frames each instrument reads, on the prefix-token grid;
* :mod:`.decomposition` — agreement, the identification score and the frame-index ramp control;
* :mod:`.diagnostic` — the ``decomposition`` stage's computation and outputs.
"""
