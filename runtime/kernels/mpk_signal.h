/*
 * mpk_signal.h — the audio front end's part of the kernel ABI (mpk.h
 * includes it): the operators of TensorFlow Lite Micro's Signal library
 * (custom operators "SignalWindow", "SignalRfft", ...), as the micro_speech
 * preprocessor chains them: window, FFT auto-scale, real FFT, energy, mel
 * filter bank, square root, spectral subtraction, PCAN gain control, log;
 * and the streaming ones: delay, stacker, framer, overlap-add, inverse
 * real FFT.  Integer outputs are bit-exact with TFLM's.
 */
#ifndef MPK_SIGNAL_H
#define MPK_SIGNAL_H

/* Included by mpk.h, inside its extern "C"; not on its own. */

/* SignalWindow: output = clamp_int16((input * weights) >> shift), the
 * weights repeated over the input (size a multiple of weight_size). */
typedef struct mpk_signal_window_params {
  int32_t size, weight_size, shift;
} mpk_signal_window_params;

/* SignalFftAutoScale: scale = max(0, 15 - bit length of max |input|);
 * output = input * 2^scale (int16, wrapping as TFLM's does); the int32
 * scalar output gets scale. */
typedef struct mpk_signal_fft_auto_scale_params {
  int32_t size;
} mpk_signal_fft_auto_scale_params;

/* SignalRfft: for each of `batches` rows of input_length real samples,
 * zero-padded to fft_length, the fft_length / 2 + 1 complex bins of
 * KISS FFT's real transform (kiss_fftr), written as (re, im) pairs,
 * output_length complex values per row.  int16 and int32 run KISS FFT's
 * fixed-point arithmetic (scaled by 1 / fft_length, rounded at every
 * stage as it rounds), float32 its float arithmetic.  The tables come
 * from the lowering: `factors` (radix, remaining length pairs of the
 * fft_length / 2 complex transform), `twiddles` (fft_length / 2 complex
 * values) and `super_twiddles` (fft_length / 4), as (re, im) int32 pairs
 * holding the int16 / int32 values or the float32 bits.  Scratch: the
 * padded row and the complex transform, 2 * fft_length values of 4 bytes,
 * plus max_radix complex values for a radix above 5. */
typedef struct mpk_signal_rfft_params {
  int32_t type; /* MPK_TYPE_INT16, MPK_TYPE_INT32 or MPK_TYPE_FLOAT32 */
  int32_t fft_length, input_length, output_length, batches;
  int32_t n_factors, max_radix;
  const int32_t *factors;
  const int32_t *twiddles;
  const int32_t *super_twiddles;
} mpk_signal_rfft_params;

/* SignalEnergy: output[i] = re^2 + im^2 of complex input i, for
 * start_index <= i < end_index; the other size - (end - start) entries
 * are 0 (TFLM leaves them as they were). */
typedef struct mpk_signal_energy_params {
  int32_t start_index, end_index, size;
} mpk_signal_energy_params;

/* SignalFilterBank: the mel filter bank's triangular filters, num_channels
 * of them, accumulated in uint64 over the uint32 spectrum from the
 * channel tables (num_channels + 1 entries each: frequency start, weight
 * start, width; the first channel only carries its unweighted part into
 * the second).  The tables were checked against the spectrum and weight
 * sizes when the model was converted. */
typedef struct mpk_signal_filter_bank_params {
  int32_t num_channels;
} mpk_signal_filter_bank_params;

/* SignalFilterBankSquareRoot: output = isqrt64(input) rounded as TFLM's
 * Sqrt64 rounds, shifted right by the int32 scalar input (mod 32). */
typedef struct mpk_signal_filter_bank_sqrt_params {
  int32_t num_channels;
} mpk_signal_filter_bank_sqrt_params;

/* SignalFilterBankSpectralSubtraction: per channel a low-pass noise
 * estimate (smoothing / one_minus_smoothing on even channels, the
 * alternate pair on odd ones, in units of 2^-spectral_subtraction_bits,
 * the signal scaled up by smoothing_bits), subtracted from the signal
 * with a floor of min_signal_remaining times it.  The estimate is the
 * op's state: `state` holds num_channels uint32, zero at start (context
 * init and reset), kept between runs; `noise_estimate` gets a copy. */
typedef struct mpk_signal_spectral_subtraction_params {
  int32_t num_channels;
  int32_t smoothing, one_minus_smoothing;
  int32_t alternate_smoothing, alternate_one_minus_smoothing;
  int32_t min_signal_remaining;
  int32_t smoothing_bits, spectral_subtraction_bits;
  int32_t clamping;
} mpk_signal_spectral_subtraction_params;

/* SignalPCAN: per-channel automatic gain control: the gain from the
 * int16 lookup table (at least 125 entries) at the noise estimate,
 * snr = (input * gain) >> snr_shift, output = PCAN's shrink(snr). */
typedef struct mpk_signal_pcan_params {
  int32_t num_channels, snr_shift;
} mpk_signal_pcan_params;

/* SignalFilterBankLog: output = min(INT16_MAX, log_e(input <<
 * correction_bits) * output_scale) in TFLM's fixed point, 0 for inputs
 * <= 1; `log_table` is the 129-entry correction table of TFLM's Log32
 * (65536 * (log2(1 + i/128) - i/128), rounded). */
typedef struct mpk_signal_filter_bank_log_params {
  int32_t num_channels, output_scale, correction_bits;
  const int32_t *log_table;
} mpk_signal_filter_bank_log_params;

/* ---- the streaming operators: each keeps its own state between runs, in
 * a persistent tensor that context init and reset_state zero; a zeroed
 * state is the state TFLM's Prepare and Reset leave.  All int16 unless
 * said; input and output never share bytes. */

/* SignalDelay: each of outer_dims rows of frame_size samples comes out
 * delay_length samples later; the first delay_length samples of a row's
 * stream are 0.  State: outer_dims * delay_length int16 (the samples
 * still to come out, oldest first; with delay_length 0, outer_dims
 * unused ones). */
typedef struct mpk_signal_delay_params {
  int32_t frame_size, delay_length, outer_dims;
} mpk_signal_delay_params;

/* SignalStacker: frames of num_channels samples go into a queue; the very
 * first frame is queued left_context + 1 times.  When the queue holds
 * left_context + 1 + right_context frames, they are the output, `valid`
 * is 1 and the oldest `step` frames leave; otherwise `valid` is 0 and the
 * output is 0 (TFLM leaves it as it was).  State: two int32 (samples
 * queued, first frame seen) and num_channels * (left_context + 1 +
 * right_context) int16. */
typedef struct mpk_signal_stacker_params {
  int32_t num_channels, left_context, right_context, step;
} mpk_signal_stacker_params;

/* SignalFramer: each of outer_dims rows of n_frames * frame_step samples
 * is queued frame_step samples at a time; after each step, when the
 * row's queue holds frame_size samples, its oldest frame_size are output
 * frame (row, step) and the oldest frame_step leave.  A step without a
 * frame leaves 0s in its output frame and sets `valid` to 0 (1 when every
 * step had one).  With prefill the queue starts with frame_size -
 * frame_step zeros.  State: one int32 (samples queued beyond the start)
 * and outer_dims rows of frame_size + frame_step int16. */
typedef struct mpk_signal_framer_params {
  int32_t frame_size, frame_step, outer_dims, n_frames, prefill;
} mpk_signal_framer_params;

/* SignalOverlapAdd: each of outer_dims rows of n_frames frames of
 * frame_size values is added into the row's buffer (int16: saturated at
 * each add, as TFLM's), whose first frame_step values are output and
 * shifted out (zeros in).  type MPK_TYPE_INT16 or MPK_TYPE_FLOAT32.
 * State: outer_dims * frame_size values of the type. */
typedef struct mpk_signal_overlap_add_params {
  int32_t type, frame_size, frame_step, outer_dims, n_frames;
} mpk_signal_overlap_add_params;

MPK_API int32_t mpk_signal_window(const mpk_signal_window_params *p, const int16_t *input,
                                  const int16_t *weights, int16_t *output, void *scratch);
MPK_API int32_t mpk_signal_fft_auto_scale(const mpk_signal_fft_auto_scale_params *p,
                                          const int16_t *input, int16_t *output, int32_t *scale,
                                          void *scratch);
MPK_API int32_t mpk_signal_rfft(const mpk_signal_rfft_params *p, const void *input, void *output,
                                void *scratch);
MPK_API int32_t mpk_signal_energy(const mpk_signal_energy_params *p, const int16_t *input,
                                  uint32_t *output, void *scratch);
MPK_API int32_t mpk_signal_filter_bank(const mpk_signal_filter_bank_params *p,
                                       const uint32_t *input, const int16_t *weights,
                                       const int16_t *unweights, const int16_t *freq_starts,
                                       const int16_t *weight_starts, const int16_t *widths,
                                       uint64_t *output, void *scratch);
MPK_API int32_t mpk_signal_filter_bank_sqrt(const mpk_signal_filter_bank_sqrt_params *p,
                                            const uint64_t *input, const int32_t *scale_bits,
                                            uint32_t *output, void *scratch);
MPK_API int32_t mpk_signal_spectral_subtraction(const mpk_signal_spectral_subtraction_params *p,
                                                const uint32_t *input, uint32_t *output,
                                                uint32_t *noise_estimate, uint32_t *state,
                                                void *scratch);
MPK_API int32_t mpk_signal_pcan(const mpk_signal_pcan_params *p, const uint32_t *input,
                                const uint32_t *noise_estimate, const int16_t *gain_lut,
                                uint32_t *output, void *scratch);
MPK_API int32_t mpk_signal_filter_bank_log(const mpk_signal_filter_bank_log_params *p,
                                           const uint32_t *input, int16_t *output, void *scratch);

/* SignalIrfft: KISS FFT's inverse real transform (kiss_fftri) of each of
 * `batches` rows of input_length = fft_length / 2 + 1 complex bins ((re,
 * im) pairs) into output_length = fft_length real samples, with
 * mpk_signal_rfft_params (the tables of the inverse transform: twiddles
 * and super_twiddles of the opposite phase).  int16 and int32 run KISS
 * FFT's fixed point (halving the folded bins and dividing by the radix at
 * every stage, so that rfft then irfft gives the input / fft_length);
 * float32 its float arithmetic, divided by fft_length as TFLM does (rfft
 * then irfft gives the input).  Scratch: 3 * fft_length / 2 + 1 +
 * max_radix complex values of two int32. */
MPK_API int32_t mpk_signal_irfft(const mpk_signal_rfft_params *p, const void *input, void *output,
                                 void *scratch);
MPK_API int32_t mpk_signal_delay(const mpk_signal_delay_params *p, const int16_t *input,
                                 int16_t *output, int16_t *state, void *scratch);
MPK_API int32_t mpk_signal_stacker(const mpk_signal_stacker_params *p, const int16_t *input,
                                   int16_t *output, uint8_t *valid, void *state, void *scratch);
MPK_API int32_t mpk_signal_framer(const mpk_signal_framer_params *p, const int16_t *input,
                                  int16_t *output, uint8_t *valid, void *state, void *scratch);
MPK_API int32_t mpk_signal_overlap_add(const mpk_signal_overlap_add_params *p, const void *input,
                                       void *output, void *state, void *scratch);

#endif /* MPK_SIGNAL_H */
