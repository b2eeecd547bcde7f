#!/usr/bin/python3
"""audio_check.py: the demo's test audio (examples/make_audio.py) checked.

    /usr/bin/python3 tests/audio_check.py [--work build/test-audio]

Makes the audio twice into WORK/a and WORK/b and checks: the same bytes both
times, and the bytes pinned below for the espeak-ng build they were made
with (skipped, with the reason, under another build); the manifest against
the files (sizes, speech ranges, Silero's frames counted again); the ground
truth against the signal (the manifest's speech louder than the rest); the resampler's pass band,
stop band and DC gain; the noise generator's pinned stream; the errors.
The last line is "test-audio: N passed, N failed[, N skipped]".
"""

import argparse
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', 'examples', 'make_audio.py')
sys.path.insert(0, os.path.dirname(SCRIPT))
import make_audio  # noqa: E402

NAMES = ['quiet_16k', 'quiet_8k', 'white_low_16k', 'white_low_8k',
         'white_high_16k', 'white_high_8k', 'hum_16k', 'hum_8k']

# SHA-256 of each file as made with Debian bookworm's espeak-ng.
PINNED_ESPEAK = 'espeak-ng 1.51 (Debian 1.51+dfsg-10+deb12u2)'
PINNED = {
    'quiet_16k': '9bd515bc8000a2707235c3cb54386a23bc4285d1115309f949a3cc87356f6457',
    'quiet_8k': '450138f188368a5ec7f57189801f22a114ca1c651dfdb94c69c0a203ead52e79',
    'white_low_16k': 'e849593313495ca7652702053f5b0222863cb1ac0bc089d0a358ff48c7431b4e',
    'white_low_8k': '6d840e5f771c1bd1a35c16b5e16f139c3fdcd855a562d99bc8e51526328cc748',
    'white_high_16k': '50b8720211a36a23d9098a943fe3aa928f6eb81113bc6aac5b482408c41840e9',
    'white_high_8k': '32a62e0300f949f7abe77f4f4618ad0af339625bb1fec8c76d697205e8b6cb5a',
    'hum_16k': '5ecbd2ee75d35dcf131068f2587c7914a5e4ff50657539ec86ac27cbe40a69ce',
    'hum_8k': 'f8ca427e14d712c2dbab6f1e2971b3decfd4937d3f1c24f1e00d3921dec5ac59',
}

# The first two uniforms of the noise generator (PCG64 seeded with SEED).
PINNED_UNIFORM = ['0x1.6f9e5d7aa7280p-1', '0x1.fc865d8e06d14p-2']

# How much louder the speech ranges are than the rest, at least (dB).
MARGIN_DB = {'quiet': 40.0, 'white_low': 20.0, 'white_high': 6.0, 'hum': 5.0}

from tally import check, skip  # noqa: E402  (tests/ is the script's directory)
import tally  # noqa: E402


def run(out, *extra):
    return subprocess.run([sys.executable, SCRIPT, '--out', out] + list(extra),
                          capture_output=True, text=True)


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_files(work):
    a, b = os.path.join(work, 'a'), os.path.join(work, 'b')
    for d in (a, b):
        r = run(d)
        check('make_audio exits 0', r.returncode == 0, r.stderr.strip())
        if r.returncode != 0:
            return None
    with open(os.path.join(a, 'manifest.json')) as f:
        manifest = json.load(f)
    with open(os.path.join(b, 'manifest.json')) as f:
        manifest_b = json.load(f)
    check('manifest names', [m['name'] for m in manifest] == NAMES,
          str([m['name'] for m in manifest]))
    for m in manifest_b:
        m['path'] = m['path'].replace(b, a, 1)
    check('manifest the same on both runs', manifest == manifest_b)
    for name in NAMES:
        fa, fb = (os.path.join(d, name + '.f32') for d in (a, b))
        check('%s the same bytes on both runs' % name,
              os.path.exists(fb) and sha256(fa) == sha256(fb))
    version = manifest[0]['espeak_ng']
    if version != PINNED_ESPEAK:
        skip('pinned bytes', 'made with %s, pinned for %s' % (version, PINNED_ESPEAK))
    else:
        for name in NAMES:
            got = sha256(os.path.join(a, name + '.f32'))
            check('%s pinned bytes' % name, got == PINNED.get(name), got)
    return manifest


def check_manifest(manifest):
    by_name = {m['name']: m for m in manifest}
    for m in manifest:
        n = m['name']
        rate = m['sample_rate']
        check('%s rate' % n, rate == (16000 if n.endswith('_16k') else 8000), str(rate))
        check('%s path' % n, os.path.basename(m['path']) == n + '.f32', m['path'])
        x = np.fromfile(m['path'], dtype='<f4')
        check('%s samples' % n, x.size == m['samples'], '%d vs %d' % (x.size, m['samples']))
        check('%s seconds' % n, m['seconds'] == round(m['samples'] / rate, 4), str(m['seconds']))
        check('%s finite, in [-1, 1]' % n,
              bool(np.all(np.isfinite(x))) and float(np.abs(x).max()) <= 1.0)
        spans = [(s['start'], s['end']) for s in m['speech']]
        flat = [v for span in spans for v in span]
        check('%s speech ranges ordered, inside the file' % n,
              flat == sorted(flat) and flat[0] >= 0 and flat[-1] <= x.size
              and all(s < e for s, e in spans), str(spans))
        total = sum(e - s for s, e in spans)
        check('%s speech_samples' % n, m['speech_samples'] == total,
              '%d vs %d' % (m['speech_samples'], total))
        check('%s speech_share' % n, m['speech_share'] == round(total / x.size, 4))
        frame = m['frame_samples']
        check('%s frame_samples' % n, frame == rate // 1000 * 32, str(frame))
        check('%s frames, the last one partial' % n, m['frames'] == -(-x.size // frame),
              str(m['frames']))
        # A frame is speech when half its samples or more are: counted here by
        # overlapping intervals, without make_audio's mask.
        speech_frames = sum(
            1 for i in range(m['frames'])
            if 2 * sum(max(0, min(e, (i + 1) * frame) - max(s, i * frame))
                       for s, e in spans) >= frame)
        check('%s speech_frames' % n, m['speech_frames'] == speech_frames,
              '%d vs %d' % (m['speech_frames'], speech_frames))
        check('%s speech_frame_share' % n,
              m['speech_frame_share'] == round(speech_frames / m['frames'], 4))
        # The ground truth against the signal: the manifest's speech is louder
        # than the rest of the file by the scene's margin (measured: quiet
        # 48 dB, white_low 23, white_high 9, hum 7; the noise counts in both).
        inside = np.zeros(x.size, dtype=bool)
        for s, e in spans:
            inside[s:e] = True
        x64 = x.astype(np.float64)
        rms_in = math.sqrt(float(np.mean(x64[inside] ** 2)))
        rms_out = math.sqrt(float(np.mean(x64[~inside] ** 2)))
        margin = MARGIN_DB[n.rsplit('_', 1)[0]]
        check('%s speech louder than the rest by %g dB' % (n, margin),
              20 * math.log10(rms_in / rms_out) > margin,
              '%.1f dB' % (20 * math.log10(rms_in / rms_out)))
    for m in manifest:
        if m['sample_rate'] != 16000:
            continue
        low = by_name[m['name'].replace('_16k', '_8k')]
        check('%s: the 8 kHz file is half as long' % m['name'],
              low['samples'] == m['samples'] // 2 or low['samples'] == (m['samples'] + 1) // 2,
              '%d vs %d' % (low['samples'], m['samples']))
        check('%s: the 8 kHz ranges are the same times' % m['name'],
              all(abs(2 * lo['start'] - hi['start']) <= 1 and abs(2 * lo['end'] - hi['end']) <= 1
                  for lo, hi in zip(low['speech'], m['speech'])))


def check_resampler():
    n = 2 * make_audio.SOURCE_RATE
    t = np.arange(n) / make_audio.SOURCE_RATE
    for rate in (16000, 8000):
        for f in (1000.0, 3000.0):
            y = make_audio.resample(np.sin(2 * np.pi * f * t), make_audio.SOURCE_RATE, rate)
            ideal = np.sin(2 * np.pi * f * np.arange(y.size) / rate)
            err = float(np.abs(y - ideal)[200:-200].max())
            check('resample %g Hz to %d Hz within 1e-4 of the ideal sine' % (f, rate),
                  err < 1e-4, '%.3g' % err)
        # Above the new Nyquist frequency: what is left would alias.
        f = 9000.0 if rate == 16000 else 4500.0
        y = make_audio.resample(np.sin(2 * np.pi * f * t), make_audio.SOURCE_RATE, rate)
        rms = math.sqrt(float(np.mean(y[200:-200] ** 2)) * 2)
        check('resample %g Hz to %d Hz: below -80 dB' % (f, rate), rms < 1e-4, '%.3g' % rms)
        y = make_audio.resample(np.ones(n), make_audio.SOURCE_RATE, rate)
        err = float(np.abs(y[200:-200] - 1).max())
        check('resample to %d Hz: unit gain at DC' % rate, err < 1e-12, '%.3g' % err)
        check('resample to %d Hz: the length' % rate, y.size == n * rate // 22050, str(y.size))
    try:
        make_audio.resample(np.ones(4), 8000, 16000)
        check('resample refuses to upsample', False, 'no error')
    except ValueError as e:
        check('resample refuses to upsample',
              str(e) == 'resample: only downsampling, got 8000 -> 16000 Hz', str(e))


def check_noise():
    # numpy guarantees PCG64's raw stream; these are its first draws.
    u = make_audio.uniform(np.random.PCG64(make_audio.SEED), 2)
    check('noise stream pinned', [float.hex(v) for v in u] == PINNED_UNIFORM,
          str([float.hex(v) for v in u]))
    w = make_audio.white_noise(np.random.PCG64(1), 200000, 0.01)
    rms = math.sqrt(float(np.mean(w ** 2)))
    check('white noise RMS within 1% of 0.01', abs(rms - 0.01) < 1e-4, '%.6g' % rms)
    h = make_audio.hum(882, 0.05)
    check('hum peak', float(np.abs(h).max()) == 0.05, repr(float(np.abs(h).max())))
    check('hum period 441 samples', bool(np.all(h[:441] == h[441:])))



def check_errors(work):
    r = run(os.path.join(work, 'err'), '--espeak', '/nonexistent/espeak-ng')
    check('missing espeak-ng: exit status', r.returncode == 1, str(r.returncode))
    check('missing espeak-ng: message', r.stderr == 'make_audio: espeak-ng not found '
          '(Debian: apt-get install espeak-ng), got /nonexistent/espeak-ng\n', r.stderr)
    fake = os.path.abspath(os.path.join(work, 'fake-espeak'))
    with open(fake, 'w') as f:
        f.write('#!/bin/sh\necho speech synthesizer 2.0\necho second line\n')
    os.chmod(fake, 0o755)
    r = run(os.path.join(work, 'err'), '--espeak', fake)
    check('not espeak-ng', (r.returncode, r.stderr) ==
          (1, "make_audio: %s does not say which espeak-ng it is, got "
              "'speech synthesizer 2.0'\n" % fake), r.stderr)
    try:
        make_audio.synthesize(shutil.which('espeak-ng'), 'xx-none', 150, 'Hello.')
        check('unknown voice', False, 'no error')
    except SystemExit as e:
        check('unknown voice', str(e) == 'make_audio: espeak-ng failed for voice xx-none, '
              'got status 1: Error: The specified espeak-ng voice does not exist.', str(e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--work', default='build/test-audio')
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    manifest = check_files(args.work)
    if manifest is not None:
        check_manifest(manifest)
    check_resampler()
    check_noise()
    check_errors(args.work)
    print(tally.line('test-audio'))
    sys.exit(1 if tally.failed else 0)


if __name__ == '__main__':
    main()
