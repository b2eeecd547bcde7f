#!/usr/bin/python3
"""make_audio.py: the demo's test audio, speech synthesized by espeak-ng.

    /usr/bin/python3 examples/make_audio.py [--out build/demo/audio]
        [--espeak espeak-ng]

Writes four scenes, each at 16 kHz and at 8 kHz, as little-endian float32
mono files in [-1, 1] (OUT/<scene>_16k.f32, OUT/<scene>_8k.f32), and
OUT/manifest.json, a JSON array with one object per file:

  name, sample_rate, path, samples, seconds, description,
  speech        the utterances: [{"start", "end", "voice", "text"}, ...],
                sample ranges [start, end) at the file's rate, from the
                first to the last sample of the synthesized voice (the
                pauses between words count as speech)
  speech_samples, speech_share   their total, and its share of the file
  frame_samples, frames, speech_frames, speech_frame_share
                Silero VAD's frames (512 samples at 16 kHz, 256 at 8 kHz;
                the last one padded with zeros, as the demo's evaluation
                does): how many, and how many are speech (at least half of
                the frame inside an utterance)
  espeak_ng     the synthesizer's version, seed   the noise generator's seed

The scenes are utterances in several voices and languages, separated by
silences of different lengths, over: a near-silent floor, low white noise,
loud white noise, and a 50 Hz mains hum with its harmonics.

The same bytes on every run and machine, for a given espeak-ng:
  - espeak-ng's formant synthesis is deterministic (22050 Hz, 16 bits);
  - the noise comes from the PCG64 bit generator's raw 64-bit output, which
    numpy guarantees stable across versions (its distributions are not);
  - the resampler is a windowed-sinc polyphase filter written here: its taps
    are computed once with Python's math module and rounded to float32, so a
    last-bit difference between two libms is absorbed, and everything after
    that is IEEE multiplications and additions in a fixed order.
  sox would do as well, but its output depends on its build's options; this
  needs nothing besides numpy.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

SOURCE_RATE = 22050          # espeak-ng's output rate
RATES = (16000, 8000)
SEED = 20260415              # the noise generator's; any fixed value works
SPEECH_GAIN = 0.7            # espeak-ng peaks near full scale: room for noise

# Each utterance: espeak-ng voice (language+variant), words per minute, text.
UTTERANCES = {
    'lights':   ('en-us', 165, 'Please turn the kitchen lights off before you leave the house.'),
    'train':    ('en-us+f3', 175, 'The train to the airport leaves from platform seven at a quarter past nine.'),
    'weights':  ('en-gb+m3', 160, 'Seven hundred and twenty three weights were rounded to eight bits.'),
    'numbers':  ('en-gb-scotland+f2', 150, 'Could you read the numbers back to me, slowly and clearly?'),
    'wetter':   ('de+m2', 160, 'Das Wetter ist heute kalt, aber morgen scheint wieder die Sonne.'),
    'chat':     ('fr-fr+f4', 170, 'Le chat dort sur le canapé pendant que la pluie tombe dehors.'),
    'mercado':  ('es+m5', 165, 'Mañana vamos al mercado a comprar pan, fruta y queso.'),
    'yes':      ('en-us+f5', 150, 'Yes.'),
    'stop':     ('en-gb+m3', 150, 'Stop!'),
}

# Each scene: its parts in order (an utterance's key, or a silence in
# seconds), the white noise's RMS and the hum's peak amplitude (full scale is
# 1; espeak-ng's speech at SPEECH_GAIN has an RMS near 0.06, -24 dBFS).
SCENES = [
    ('quiet', 'speech and pauses over a near-silent floor (white noise, RMS -70 dBFS)',
     [0.5, 'lights', 0.3, 'wetter', 1.5, 'yes', 2.5, 'train', 0.8], 0.0003, 0.0),
    ('white_low', 'speech over low white noise (RMS -44 dBFS, about 20 dB below the speech)',
     [1.0, 'chat', 0.6, 'numbers', 2.0, 'stop', 1.2, 'mercado', 0.5], 0.006, 0.0),
    ('white_high', 'speech over loud white noise (RMS -30 dBFS, about 6 dB below the speech), with a stretch of noise alone',
     [0.4, 'weights', 3.0, 'yes', 0.7, 'lights', 0.6], 0.03, 0.0),
    ('hum', 'speech over a 50 Hz mains hum with harmonics at 100 and 150 Hz (peak -26 dBFS) and faint white noise (RMS -56 dBFS)',
     [1.5, 'mercado', 0.4, 'train', 1.0, 'stop', 0.4, 'chat', 1.0], 0.0016, 0.05),
]

# Resampler: a low-pass at ROLLOFF of the output's Nyquist frequency, a sinc
# windowed by a Kaiser window of ZEROS zero crossings on each side (KAISER_BETA
# 8.6: stop band below -85 dB).
ROLLOFF = 0.92
ZEROS = 16
KAISER_BETA = 8.6
# A sample counts as voice from this absolute int16 value (-50 dBFS).
VOICE_THRESHOLD = 100
# Silero VAD v5's frame at each rate: 32 ms.
FRAME_SAMPLES = {16000: 512, 8000: 256}


def fail(what):
    sys.exit('make_audio: ' + what)


def espeak_version(espeak):
    said = subprocess.run([espeak, '--version'], capture_output=True, text=True).stdout
    # "eSpeak NG text-to-speech: 1.51  Data at: ..."
    words = said.split()
    if 'text-to-speech:' not in words[:-1]:
        first = said.strip().split('\n')[0]
        fail('%s does not say which espeak-ng it is, got %r' % (espeak, first))
    version = words[words.index('text-to-speech:') + 1]
    try:
        deb = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'espeak-ng'],
                             capture_output=True, text=True)
        if deb.returncode == 0 and deb.stdout:
            version += ' (Debian %s)' % deb.stdout
    except FileNotFoundError:
        pass
    return 'espeak-ng ' + version


def synthesize(espeak, voice, wpm, text):
    """espeak-ng's int16 samples at 22050 Hz, trimmed to the voice."""
    run = subprocess.run([espeak, '-v', voice, '-s', str(wpm), '--stdout', text],
                         capture_output=True)
    if run.returncode != 0:
        fail('espeak-ng failed for voice %s, got status %d: %s'
             % (voice, run.returncode, run.stderr.decode(errors='replace').strip()))
    wav = run.stdout
    # A RIFF/WAVE stream whose sizes are unknown when writing to a pipe: find
    # the fmt and data chunks, and take everything after 'data'.
    if wav[:4] != b'RIFF' or wav[8:12] != b'WAVE':
        fail('espeak-ng did not write a WAV stream for voice %s, got %r' % (voice, wav[:12]))
    pos, fmt = 12, None
    while pos + 8 <= len(wav):
        tag, size = wav[pos:pos + 4], int.from_bytes(wav[pos + 4:pos + 8], 'little')
        if tag == b'fmt ':
            fmt = wav[pos + 8:pos + 24]
        elif tag == b'data':
            break
        pos += 8 + size
    else:
        fail('espeak-ng wrote no data chunk for voice %s, got %d bytes' % (voice, len(wav)))
    if fmt is None or len(fmt) < 16:
        fail('espeak-ng wrote no format chunk before its data for voice %s' % voice)
    channels = int.from_bytes(fmt[2:4], 'little')
    rate = int.from_bytes(fmt[4:8], 'little')
    bits = int.from_bytes(fmt[14:16], 'little')
    if (channels, rate, bits) != (1, SOURCE_RATE, 16):
        fail('espeak-ng should write mono 16-bit audio at 22050 Hz for voice %s, '
             'got %d channel(s), %d bits at %d Hz' % (voice, channels, bits, rate))
    data = wav[pos + 8:]
    pcm = np.frombuffer(data[:len(data) // 2 * 2], dtype='<i2')
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) >= VOICE_THRESHOLD)
    if loud.size == 0:
        fail('espeak-ng wrote silence for voice %s, got %d samples' % (voice, pcm.size))
    return pcm[loud[0]:loud[-1] + 1]


def uniform(bits, n):
    """n floats in [0, 1), exact from the top 53 bits of each raw draw."""
    return (bits.random_raw(n) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def white_noise(bits, n, rms):
    """Approximately Gaussian white noise of the given RMS: the sum of four
    uniforms (Irwin-Hall), centred, has variance 1/3."""
    s = uniform(bits, n) + uniform(bits, n) + uniform(bits, n) + uniform(bits, n)
    return (s - 2.0) * (rms * math.sqrt(3.0))


def hum(n, peak):
    """50 Hz with its 2nd and 3rd harmonics at 1/2 and 1/4 amplitude: exactly
    441 samples per period at 22050 Hz, so one period is tabulated (rounded
    to float32) and repeated."""
    period = SOURCE_RATE // 50
    one = [math.sin(2 * math.pi * k / period) + 0.5 * math.sin(4 * math.pi * k / period)
           + 0.25 * math.sin(6 * math.pi * k / period) for k in range(period)]
    table = np.array(one, dtype=np.float32).astype(np.float64)
    table *= peak / np.abs(table).max()
    return np.tile(table, n // period + 1)[:n]


def bessel_i0(x):
    """The modified Bessel function I0 by its power series (IEEE only)."""
    total, term, k = 1.0, 1.0, 1
    while term > 1e-21 * total:
        term *= (x / (2 * k)) ** 2
        total += term
        k += 1
    return total


def resample_taps(up, down):
    """The polyphase table for resampling by up/down (< 1): row p holds the
    taps of the outputs that fall p/up of an input sample after one, for the
    2K inputs around them; each row sums to 1 (unit gain at DC)."""
    fc = 0.5 * ROLLOFF * up / down            # cut-off, cycles per input sample
    half = ZEROS / (2 * fc)                   # window half-width, input samples
    k = int(math.ceil(half))
    i0_beta = bessel_i0(KAISER_BETA)
    taps = np.zeros((up, 2 * k), dtype=np.float32)
    for p in range(up):
        for j in range(2 * k):
            d = p / up + (k - 1 - j)          # output time minus input time
            if abs(d) >= half:
                continue
            x = 2 * fc * d
            sinc = 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)
            r = d / half
            window = bessel_i0(KAISER_BETA * math.sqrt(1.0 - r * r)) / i0_beta
            taps[p, j] = 2 * fc * sinc * window
    taps = taps.astype(np.float64)
    return taps / taps.sum(axis=1, keepdims=True), k


def resample(x, rate_in, rate_out):
    """x (float64) from rate_in to rate_out < rate_in: output n is at input
    time n * rate_in / rate_out; the signal is zero outside x."""
    g = math.gcd(rate_in, rate_out)
    up, down = rate_out // g, rate_in // g
    if up >= down:
        raise ValueError('resample: only downsampling, got %d -> %d Hz' % (rate_in, rate_out))
    taps, k = resample_taps(up, down)
    n_out = len(x) * up // down
    t = np.arange(n_out, dtype=np.int64) * down
    base, phase = t // up, t % up
    padded = np.concatenate([np.zeros(k), x, np.zeros(k)])
    y = np.zeros(n_out)
    # Input base - k + 1 + j is padded[base + 1 + j]; summed in order of j.
    for j in range(2 * k):
        y += taps[phase, j] * padded[base + 1 + j]
    return y


def scene_signal(parts, noise_rms, hum_peak, bits, voices):
    """The scene at 22050 Hz and its utterances as [start, end) ranges."""
    pieces, speech, pos = [], [], 0
    for part in parts:
        if isinstance(part, str):
            pcm = voices[part]
            pieces.append(pcm.astype(np.float64) * (SPEECH_GAIN / 32768))
            speech.append((pos, pos + pcm.size, part))
            pos += pcm.size
        else:
            n = int(round(part * SOURCE_RATE))
            pieces.append(np.zeros(n))
            pos += n
    x = np.concatenate(pieces)
    x += white_noise(bits, x.size, noise_rms)
    if hum_peak:
        x += hum(x.size, hum_peak)
    return x, speech


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default='build/demo/audio')
    ap.add_argument('--espeak', default='espeak-ng')
    args = ap.parse_args()
    espeak = shutil.which(args.espeak)
    if espeak is None:
        fail('espeak-ng not found (Debian: apt-get install espeak-ng), got %s' % args.espeak)
    version = espeak_version(espeak)
    voices = {key: synthesize(espeak, voice, wpm, text)
              for key, (voice, wpm, text) in UTTERANCES.items()}

    os.makedirs(args.out, exist_ok=True)
    bits = np.random.PCG64(SEED)
    manifest = []
    for name, description, parts, noise_rms, hum_peak in SCENES:
        x, speech = scene_signal(parts, noise_rms, hum_peak, bits, voices)
        for rate in RATES:
            y = np.clip(resample(x, SOURCE_RATE, rate), -1.0, 1.0).astype('<f4')
            g = math.gcd(SOURCE_RATE, rate)
            up, down = rate // g, SOURCE_RATE // g
            # The range at the new rate: every output sample whose input time
            # lies inside [start, end).
            ranges = [{'start': -(-start * up // down), 'end': -(-end * up // down),
                       'voice': UTTERANCES[key][0], 'text': UTTERANCES[key][2]}
                      for start, end, key in speech]
            voiced = sum(r['end'] - r['start'] for r in ranges)
            frame = FRAME_SAMPLES[rate]
            frames = -(-y.size // frame)
            inside = np.zeros(frames * frame, dtype=bool)
            for r in ranges:
                inside[r['start']:r['end']] = True
            speech_frames = int(np.count_nonzero(
                2 * inside.reshape(frames, frame).sum(axis=1) >= frame))
            fname = '%s_%dk' % (name, rate // 1000)
            path = os.path.join(args.out, fname + '.f32')
            with open(path, 'wb') as f:
                f.write(y.tobytes())
            manifest.append({
                'name': fname, 'sample_rate': rate, 'path': path,
                'samples': int(y.size), 'seconds': round(y.size / rate, 4),
                'description': description, 'speech': ranges,
                'speech_samples': voiced, 'speech_share': round(voiced / y.size, 4),
                'frame_samples': frame, 'frames': frames, 'speech_frames': speech_frames,
                'speech_frame_share': round(speech_frames / frames, 4),
                'espeak_ng': version, 'seed': SEED,
            })
    with open(os.path.join(args.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write('\n')
    for rate in RATES:
        files = [m for m in manifest if m['sample_rate'] == rate]
        secs = sum(m['samples'] for m in files) / rate
        frames = sum(m['frames'] for m in files)
        share = sum(m['speech_frames'] for m in files) / frames
        print('make_audio: %d files at %d Hz, %.1f s, %d frames of %d samples, '
              '%.1f%% of them speech'
              % (len(files), rate, secs, frames, files[0]['frame_samples'], 100 * share))
    print('make_audio: wrote %s (%s)' % (os.path.join(args.out, 'manifest.json'), version))


if __name__ == '__main__':
    main()
