// How the native model passes are compiled (models/cnn_denoiser.cpp,
// models/log_encoder_native.cpp; both built with -O3 -ffp-contract=off).
//
// LS_KERNEL builds a hot function twice, for AVX2 and for any x86-64, and the
// loader picks one per machine. Both give the same bits: loops are vectorised
// over channels only, so each lane keeps its order of additions; nothing is
// contracted into FMA; reductions across channels stay in order (no
// fast-math). Sanitizer builds get one plain version.
#pragma once

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define LS_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define LS_KERNEL
#endif
// Inlined into its LS_KERNEL caller, so it is built for that clone's target.
#define LS_INLINE __attribute__((always_inline)) inline
