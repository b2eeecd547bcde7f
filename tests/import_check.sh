#!/bin/sh
# import_check.sh: the demo's SQL import (examples/import_models.sql, through
# q_tensors_file) against the reference Python importer
# (tests/import_models_ref.py, onnx's own loader and an independent
# flatbuffer reader), tensor for tensor: the same names in the same order,
# shapes, dtypes, channel axes and bytes, and the same model rows.
# Run by `make test-import`; ends with "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
ext=${QUANT_EXT:-dist/quant}
sh examples/fetch_models.sh build/models >/dev/null
sha256() { sha256sum "$1" | cut -d' ' -f1; }
rm -f build/import_sql.db build/import_py.db
sqlite3 -bail build/import_sql.db ".load $ext" \
  ".parameter set @models 'build/models'" \
  ".parameter set @silero_sha256 '$(sha256 build/models/silero_vad_v5.onnx)'" \
  ".parameter set @mediapipe_sha256 '$(sha256 build/models/face_detection_short_range.tflite)'" \
  '.read sql/registry.sql' '.read examples/import_models.sql' >/dev/null
/usr/bin/python3 tests/import_models_ref.py --db build/import_py.db \
  --models build/models --schema sql/registry.sql >/dev/null
# One line per tensor of either import: ok when the other has it at the same
# position with the same shape, dtype, channel axis and bytes.
sqlite3 -bail build/import_sql.db "ATTACH 'build/import_py.db' AS py;" "
WITH s AS (SELECT m.name AS model, t.name, t.shape, t.dtype, t.channel_axis, t.data,
                  row_number() OVER (ORDER BY t.tensor_id) AS pos
           FROM main.tensors t JOIN main.models m USING (model_id)),
     p AS (SELECT m.name AS model, t.name, t.shape, t.dtype, t.channel_axis, t.data,
                  row_number() OVER (ORDER BY t.tensor_id) AS pos
           FROM py.tensors t JOIN py.models m USING (model_id)),
     n AS (SELECT model, name FROM s UNION SELECT model, name FROM p)
SELECT CASE WHEN s.pos IS p.pos AND s.shape IS p.shape AND s.dtype IS p.dtype
             AND s.channel_axis IS p.channel_axis AND s.data IS p.data
            THEN 'ok' ELSE 'FAILED' END || ' ' || n.model || ' ' || n.name
       || CASE WHEN s.name IS NULL THEN ' (only in the Python import)'
               WHEN p.name IS NULL THEN ' (only in the SQL import)' ELSE '' END
FROM n LEFT JOIN s USING (model, name) LEFT JOIN p USING (model, name)
ORDER BY coalesce(s.pos, p.pos);
SELECT CASE WHEN count(*) = 2 THEN 'ok' ELSE 'FAILED' END || ' models rows'
FROM (SELECT name, version, format, source, licence, homepage, sha256 FROM main.models
      INTERSECT
      SELECT name, version, format, source, licence, homepage, sha256 FROM py.models);
" > build/import_check.txt
grep -v '^ok ' build/import_check.txt || true
ok=$(grep -c '^ok ' build/import_check.txt || true)
bad=$(grep -vc '^ok ' build/import_check.txt || true)
echo "import: $ok passed, $bad failed"
[ "$bad" -eq 0 ]
