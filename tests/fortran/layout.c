/*
 * layout.c -- the C compiler's view of gpuinst's public structs, for
 * test_bindings.f90 to compare with its bind(C) types (module gpuinst).
 * Sizes and offsets in bytes.
 */
#include <stddef.h>
#include <stdint.h>

#include "gpuinst.h"

/* Called from Fortran only (bind(C) interfaces in test_bindings.f90). */
void gi_test_attr_layout(int64_t out[8]);
void gi_test_counts_layout(int64_t out[9]);
void gi_test_attr_init(gpuinst_attr *out);
double gi_test_attr_double(const gpuinst_attr *a);
void gi_test_profile_layout(int64_t out[12]);

/* out: sizeof, then the offsets of struct_size, color, category,
 * payload_type, payload, name, reserved_. */
void gi_test_attr_layout(int64_t out[8])
{
    out[0] = (int64_t)sizeof(gpuinst_attr);
    out[1] = (int64_t)offsetof(gpuinst_attr, struct_size);
    out[2] = (int64_t)offsetof(gpuinst_attr, color);
    out[3] = (int64_t)offsetof(gpuinst_attr, category);
    out[4] = (int64_t)offsetof(gpuinst_attr, payload_type);
    out[5] = (int64_t)offsetof(gpuinst_attr, payload);
    out[6] = (int64_t)offsetof(gpuinst_attr, name);
    out[7] = (int64_t)offsetof(gpuinst_attr, reserved_);
}

/* out: sizeof, then the offsets of the eight counters in declaration order. */
void gi_test_counts_layout(int64_t out[9])
{
    out[0] = (int64_t)sizeof(gpuinst_counts);
    out[1] = (int64_t)offsetof(gpuinst_counts, ranges);
    out[2] = (int64_t)offsetof(gpuinst_counts, marks);
    out[3] = (int64_t)offsetof(gpuinst_counts, before_init);
    out[4] = (int64_t)offsetof(gpuinst_counts, after_finalize);
    out[5] = (int64_t)offsetof(gpuinst_counts, invalid_argument);
    out[6] = (int64_t)offsetof(gpuinst_counts, stack_empty);
    out[7] = (int64_t)offsetof(gpuinst_counts, range_not_open);
    out[8] = (int64_t)offsetof(gpuinst_counts, lost);
}

/* GPUINST_ATTR_INIT as C spells it, for comparison with gpuinst_attr_init()
 * and the Fortran type's default initialisation. */
void gi_test_attr_init(gpuinst_attr *out)
{
    const gpuinst_attr init = GPUINST_ATTR_INIT;
    *out = init;
}

/* The double payload a C reader sees in the union after Fortran set it. */
double gi_test_attr_double(const gpuinst_attr *a) { return a->payload.f64; }

/* out: sizeof(gpuinst_profile), then the offsets of its members in order. */
void gi_test_profile_layout(int64_t out[12])
{
    out[0] = (int64_t)sizeof(gpuinst_profile);
    out[1] = (int64_t)offsetof(gpuinst_profile, struct_size);
    out[2] = (int64_t)offsetof(gpuinst_profile, status);
    out[3] = (int64_t)offsetof(gpuinst_profile, profiled);
    out[4] = (int64_t)offsetof(gpuinst_profile, pass);
    out[5] = (int64_t)offsetof(gpuinst_profile, passes);
    out[6] = (int64_t)offsetof(gpuinst_profile, reserved0_);
    out[7] = (int64_t)offsetof(gpuinst_profile, occurrence);
    out[8] = (int64_t)offsetof(gpuinst_profile, restore);
    out[9] = (int64_t)offsetof(gpuinst_profile, restore_user);
    out[10] = (int64_t)offsetof(gpuinst_profile, impl_);
    out[11] = (int64_t)offsetof(gpuinst_profile, reserved_);
}
