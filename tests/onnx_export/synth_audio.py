#!/usr/bin/python3
"""synth_audio.py OUT_DIR: deterministic stand-in audio for the VAD evaluation.

Writes OUT_DIR/<name>.f32 (little-endian float32 mono in [-1, 1]) and
OUT_DIR/manifest.json in the layout examples/evaluate_vad.mjs reads:
[{"name", "sample_rate", "path", "samples"}, ...].  The demo's own audio is
espeak-ng speech mixed with silence and noise; this is a synthetic signal
with the same outline, for testing without espeak-ng: voiced stretches (a
gliding pitch with its harmonics, shaped by syllable-rate envelopes and two
formant-like resonances), pauses of silence, and low white noise, at 16 kHz
and 8 kHz.  numpy's PCG64 with fixed seeds gives the same bytes everywhere.
"""

import json
import os
import sys

import numpy as np


def voiced(rng, seconds, sr):
    """A vowel-like sound: harmonics of a gliding pitch, syllable envelopes."""
    n = int(seconds * sr)
    t = np.arange(n) / sr
    f0 = rng.uniform(100, 220) * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.5, 2) * t))
    phase = 2 * np.pi * np.cumsum(f0) / sr
    formants = rng.uniform(400, 900), rng.uniform(1000, 2400)
    x = np.zeros(n)
    for k in range(1, 30):
        f = k * f0
        gain = sum(np.exp(-((f - fm) / 250.0) ** 2) for fm in formants) + 0.05 / k
        x += np.where(f < sr / 2 - 200, gain * np.sin(k * phase), 0)
    syllables = np.clip(np.sin(np.pi * rng.uniform(3, 5) * t), 0, None) ** 0.5
    return x / np.max(np.abs(x)) * syllables


def clip(rng, sr, seed):
    """Silence, voiced stretches and pauses, under a low noise floor."""
    parts = [np.zeros(int(0.5 * sr))]
    for _ in range(3):
        parts.append(0.5 * voiced(rng, rng.uniform(0.8, 1.6), sr))
        parts.append(np.zeros(int(rng.uniform(0.3, 0.9) * sr)))
    x = np.concatenate(parts)
    x += rng.normal(0, 0.003 * (1 + seed % 3), x.size)
    return np.clip(x, -1, 1).astype('<f4')


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'build/demo/audio'
    os.makedirs(out, exist_ok=True)
    manifest = []
    for sr in (16000, 8000):
        for seed in range(3):
            name = f'synthetic{seed}_{sr // 1000}k'
            x = clip(np.random.default_rng([sr, seed]), sr, seed)
            path = os.path.join(out, name + '.f32')
            with open(path, 'wb') as f:
                f.write(x.tobytes())
            manifest.append({'name': name, 'sample_rate': sr, 'path': path,
                             'samples': int(x.size)})
    with open(os.path.join(out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
        f.write('\n')
    print(f'synth_audio: {len(manifest)} clips in {out}/manifest.json')


if __name__ == '__main__':
    main()
