/*
** x86_width_end.h: closes what x86_width.h opened (no include guard: read
** once per width).  The compiler's target goes back to the build's, and
** every word of the vocabulary, SQ_W included, is removed, so the next
** kernel file of the amalgamation starts clean.
*/
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#undef SQ_FN_PASTE
#undef SQ_FN_EXPAND
#undef SQ_FN
#undef SQ_PRAGMA
#undef SQ_UNROLL
#undef SQ_PATH
#undef vfloat
#undef vint
#undef vdouble
#undef vhalf
#undef vihalf
#undef vmask
#undef SQ_KEEP
#undef vf_load
#undef vf_store
#undef vf_set1
#undef vf_load1
#undef vf_zero
#undef vf_add
#undef vf_sub
#undef vf_mul
#undef vf_div
#undef vf_sqrt
#undef vf_min
#undef vf_max
#undef vf_abs
#undef vf_neg
#undef vf_round
#undef vf_from_f16
#undef vf_cmp
#undef vf_blend
#undef vf_keep
#undef vf_clear
#undef vf_store_lanes
#undef vf_lo
#undef vf_hi
#undef vf_signs
#undef vf_store_f16
#undef vf_unpacklo
#undef vf_unpackhi
#undef vf_unpacklo2
#undef vf_unpackhi2
#undef vf_shuffle
#undef vf_even128
#undef vf_odd128
#undef vm_and
#undef vm_or
#undef vm_andnot
#undef vm_none
#undef vm_not
#undef vm_any
#undef vm_bits
#undef vi_load
#undef vi_store
#undef vi_set1
#undef vi_add
#undef vi_sub
#undef vi_min
#undef vi_max
#undef vi_and
#undef vi_or
#undef vi_slli
#undef vi_srli
#undef vi_load_u8
#undef vi_load_i8
#undef vi_inc
#undef vi_dec
#undef vi_blend
#undef vi_clear
#undef vi_or_where
#undef vi_cmpgt
#undef vi_trunc
#undef vi_cvt
#undef vi_round
#undef vi_to_f
#undef vi_bits
#undef vi_lo
#undef vi_hi
#undef vi_join
#undef vi_from_u16
#undef vi_srlv
#undef vi_sllv
#undef vi_cmpeq
#undef vf_of_bits
#undef vi_store_u8
#undef vd_load
#undef vd_store
#undef vd_set1
#undef vd_zero
#undef vd_add
#undef vd_sub
#undef vd_mul
#undef vd_max
#undef vd_min
#undef vd_abs
#undef vd_of
#undef vd_load_f
#undef vd_trunc
#undef SQ_W
