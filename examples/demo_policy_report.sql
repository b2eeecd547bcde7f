-- demo_policy_report.sql: what each policy costs and loses, printed.
--
-- Run by examples/demo.sh once the policies are applied (sql/policy.sql)
-- and, when they have run, the exports and their evaluations are in:
--   sqlite3 build/demo.db '.read examples/demo_policy_report.sql'
-- Needs no extension.  Per policy and model: the tensors it quantized and
-- kept float, bytes and bits per weight (the chosen quantizations' bytes
-- plus the float tensors' stored bytes), the mean and worst weight SQNR
-- (policy_summary), and, joined from exports and evaluations where rows
-- exist, the model's output error in the runtime against the float model
-- over every evaluation of the policy's exports of that model: the speech
-- probability's mean absolute difference (weighted by frames), its maximum,
-- and the share of frames whose decision changed.  '-' where nothing was
-- measured (no export or evaluation yet).

.mode box
.headers on

WITH out AS (
  SELECT e.policy_id, e.model_id,
         sum(v.mean_abs_diff * v.frames) / sum(v.frames) AS mean_abs_diff,
         max(v.max_abs_diff)                            AS max_abs_diff,
         sum(v.decisions_changed)                       AS changed,
         sum(v.frames)                                  AS frames
  FROM exports e JOIN evaluations v USING (export_id)
  GROUP BY e.policy_id, e.model_id)
SELECT s.policy,
       CASE s.model WHEN 'silero_vad' THEN 'silero'
                    WHEN 'face_detection_short_range' THEN 'facedet'
                    ELSE s.model END                      AS model,
       s.quantized || '/' || s.tensors                   AS "quantized",
       s.bytes_after                                     AS bytes,
       printf('%.2f', s.bits_per_weight)                 AS "bits/w",
       printf('%.1f%%', 100.0 * s.bytes_after / s.bytes_before) AS "of float",
       CASE WHEN s.mean_sqnr_db IS NULL THEN '-'
            ELSE printf('%.1f', s.mean_sqnr_db) END      AS "mean dB",
       CASE WHEN s.worst_sqnr_db IS NULL THEN '-'
            ELSE printf('%.1f', s.worst_sqnr_db) END     AS "worst dB",
       coalesce(s.worst_tensor, '-')                     AS "worst tensor",
       CASE WHEN o.frames IS NULL THEN '-'
            ELSE printf('%.5f', o.mean_abs_diff) END     AS "mean |dp|",
       CASE WHEN o.frames IS NULL THEN '-'
            ELSE printf('%.4f', o.max_abs_diff) END      AS "max |dp|",
       CASE WHEN o.frames IS NULL THEN '-'
            ELSE printf('%.2f%% (%d/%d)', 100.0 * o.changed / o.frames,
                        o.changed, o.frames) END          AS "decisions changed"
FROM policy_summary s
LEFT JOIN out o USING (policy_id, model_id)
ORDER BY s.model DESC, s.bits_per_weight DESC, s.policy;

-- What each policy chose, by quantization label (float: kept as stored).
SELECT p.name                                            AS policy,
       CASE m.name WHEN 'silero_vad' THEN 'silero'
                   WHEN 'face_detection_short_range' THEN 'facedet'
                   ELSE m.name END                       AS model,
       group_concat(n || ' ' || label, ', ')             AS "tensors by choice"
FROM (SELECT c.policy_id, t.model_id, coalesce(q.label, 'float') AS label,
             count(*) AS n, min(c.rule_id) AS first_rule
      FROM policy_choices c JOIN tensors t USING (tensor_id)
      LEFT JOIN quantizations q USING (quantization_id)
      GROUP BY c.policy_id, t.model_id, label
      ORDER BY c.policy_id, t.model_id, first_rule, label)
JOIN policies p USING (policy_id) JOIN models m USING (model_id)
GROUP BY policy_id, model_id
ORDER BY m.name DESC, p.policy_id;

-- The evaluations one by one (nothing printed before there are any).
SELECT p.name                                            AS policy,
       e.format                                          AS file,
       v.sample_rate                                     AS rate,
       v.input_set                                       AS input,
       v.frames                                          AS frames,
       printf('%.5f', v.mean_abs_diff)                   AS "mean |dp|",
       printf('%.4f', v.max_abs_diff)                    AS "max |dp|",
       printf('%.2f%%', 100.0 * v.changed_share)         AS changed,
       v.runtime                                         AS runtime
FROM evaluations v JOIN exports e USING (export_id)
JOIN policies p USING (policy_id)
ORDER BY p.policy_id, e.format, v.sample_rate DESC, v.input_set;
