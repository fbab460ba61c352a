//! The vector width of the hot arithmetic kernels, chosen at run time: AVX2 (256-bit lanes)
//! where the CPU has it, else the portable x86-64 baseline (SSE2, 128-bit) or the target's own.
//!
//! A kernel is written once, as a [`Kernel`] whose `run` is `#[inline(always)]`, and compiled
//! twice: inlined into the plain path of [`run_on`] and into [`run_avx2`], a
//! `#[target_feature(enable = "avx2")]` function. (A kernel may lay its work out by width in
//! `run_wide`, as the fast fading's H sums 8 RBs at a time there and two halves of 4 at the
//! baseline, but never change an operation.) The binary stays portable (one build, the
//! baseline target) and the results stay the same bits on every CPU:
//! - AVX2 only, never `fma`: Rust does not contract `a * b + c` into a fused multiply-add
//!   unless the code says so, so both paths execute the same IEEE-754 operations on each value,
//!   in the same order, 4 f64 (8 f32) lanes at a time instead of 2 (4).
//! - No kernel reduces across lanes: each sum runs in the written order (LLVM does not reorder
//!   floating-point additions without fast-math flags, whatever the width), and the tests of
//!   each kernel compare both instantiations bit for bit.
//!
//! ```text
//!   caller ── simd::run(kernel) ──┬─ AVX2 detected (once, std caches it) ─> run_avx2(kernel) ─> kernel.run() at 256 bits
//!                                 └─ otherwise, or not x86-64 ────────────────────────────────> kernel.run() at the baseline
//! ```
//! Dispatch is coarse (one call per row or per fading evaluation, not per RB), so its cost is
//! one well-predicted branch and everything the kernel inlines gets the wide lanes.
//!
//! The one exception to the workspace's `unsafe_code = "deny"`: calling a `#[target_feature]`
//! function from code compiled without the feature is `unsafe` (the CPU must have it); [`Width`]
//! holds AVX2 only when run-time detection found it, which is what makes the call sound.

/// Which instantiation of a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Width(Isa);

/// Private, so that a [`Width`] of AVX2 can only come from [`Width::avx2`] (detected).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Baseline,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Width {
    /// The portable instantiation (SSE2 on x86-64), on any CPU.
    pub const BASELINE: Width = Width(Isa::Baseline);

    /// The AVX2 instantiation, if this CPU has AVX2 (`None` elsewhere, and on other targets).
    pub fn avx2() -> Option<Width> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Width(Isa::Avx2));
        }
        None
    }

    /// The widest this CPU runs: AVX2 if detected, else the baseline. The detection runs once;
    /// std keeps its answer in a static, so each call is one load and a branch.
    pub fn detected() -> Width {
        Width::avx2().unwrap_or(Width::BASELINE)
    }
}

/// A hot arithmetic kernel: its inputs and outputs (borrowed), and its body in `run`, which
/// must be `#[inline(always)]` (with every function it calls that should get the wide lanes),
/// so that each instantiation compiles it for its own width.
pub trait Kernel {
    type Output;
    fn run(self) -> Self::Output;
    /// The body compiled for AVX2: `run`'s, unless the kernel lays its work out by width (the
    /// same operations per value, in wider blocks).
    #[inline(always)]
    fn run_wide(self) -> Self::Output
    where
        Self: Sized,
    {
        self.run()
    }
}

/// Run `kernel` at the widest width this CPU has.
#[inline]
pub fn run<K: Kernel>(kernel: K) -> K::Output {
    run_on(Width::detected(), kernel)
}

/// Run `kernel` as instantiated for `width` (the tests compare the two).
#[inline]
#[allow(unsafe_code)]
pub fn run_on<K: Kernel>(width: Width, kernel: K) -> K::Output {
    match width.0 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a Width holds Isa::Avx2 only when is_x86_feature_detected!("avx2") found it (Width::avx2).
        Isa::Avx2 => unsafe { run_avx2(kernel) },
        Isa::Baseline => kernel.run(),
    }
}

/// `kernel` compiled with AVX2 (its `#[inline(always)]` body is inlined here).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run_wide()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Run `check` with the AVX2 width, or print why not (a CPU without AVX2 skips the comparison).
    pub(crate) fn with_avx2(what: &str, check: impl FnOnce(Width)) {
        match Width::avx2() {
            Some(w) => check(w),
            None => println!("{what}: this CPU has no AVX2, the AVX2 instantiation is not compared"),
        }
    }

    /// A kernel with a sequential sum across a slice, the kind a wider target must not reorder.
    struct Dot<'a>(&'a [f64], &'a [f64]);

    impl Kernel for Dot<'_> {
        type Output = f64;
        #[inline(always)]
        fn run(self) -> f64 {
            self.0.iter().zip(self.1).fold(0.0, |s, (a, b)| s + a * b)
        }
    }

    #[test]
    fn a_sum_in_order_gives_the_same_bits_at_both_widths() {
        // Terms of very different magnitudes: any reassociation of the sum would show in the bits.
        let a: Vec<f64> = (0..103).map(|i| (f64::from(i) * 0.7).sin() * 10f64.powi(i % 17 - 8)).collect();
        let b: Vec<f64> = (0..103).map(|i| (f64::from(i) * 1.3).cos()).collect();
        let plain = run_on(Width::BASELINE, Dot(&a, &b));
        let sequential = a.iter().zip(&b).fold(0.0, |s, (x, y)| s + x * y);
        assert_eq!(plain.to_bits(), sequential.to_bits());
        with_avx2("simd::Dot", |w| assert_eq!(run_on(w, Dot(&a, &b)).to_bits(), plain.to_bits()));
        assert_eq!(run(Dot(&a, &b)).to_bits(), plain.to_bits());
    }
}
