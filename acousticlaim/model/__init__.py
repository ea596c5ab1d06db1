"""The reference system (SPEC §5): frozen encoder → compressor → adapter → Qwen3 decoder under LoRA, with a
confidence head whose values fill the decoder's value slots.

Modules: ``encoder`` (WavLM at layer 7, or log-mel), ``features`` (the cached per-clip frames),
``compressor`` (one prefix token per 160 ms, overlap channel held at zero), ``adapter`` (context block),
``decoder`` (Qwen3ForCausalLM, LoRA, tokenizer), ``head`` (v, s, loss, decomposition), ``descriptions``
(training prose, the decline rule, slot filling), ``system`` (the assembly), ``batching``/``data`` (the
clip table), ``train``, ``predict`` (readouts A and B), ``checkpoint`` (safetensors), ``ridge`` (the matched
ridge), ``evaluate`` (nMAE, decline rates), ``run`` (the stages as functions).
"""
