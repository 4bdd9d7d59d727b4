/* fuzz_names: names as the API receives them from C and from Fortran (the
 * module passes trim(name)//C_NULL_CHAR: any bytes, NUL-terminated) ->
 * push/pop, marks, start/end, domains, categories, registered strings,
 * thread names: length limit, UTF-8 cut, interning, caches. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    char *s = fuzzString(data, size);
    gpuinst_range_id id = 0;
    gpuinst_domain d = 0;
    gpuinst_string h = 0;
    gpuinst_attr a = GPUINST_ATTR_INIT;
    if (s == NULL) return 0;
    if (!once) {
        once = 1;
        setenv("GPUINST_TRACE", "none", 1);
        gpuinst_init(); /* built without HDF5: the exit writes nothing */
    }
    if (gpuinst_range_push(s) == GPUINST_SUCCESS) gpuinst_range_pop();
    gpuinst_mark(s);
    if (gpuinst_range_start(s, &id) == GPUINST_SUCCESS) gpuinst_range_end(id);
    if (size > 0 && (data[0] & 1)) {
        if (gpuinst_domain_create(s, &d) == GPUINST_SUCCESS) {
            gpuinst_category_name(d, 1u + (size & 7u), s);
            if (gpuinst_string_register(d, s, &h) == GPUINST_SUCCESS) {
                a.name = h;
                if (gpuinst_range_push_ex(d, NULL, &a) == GPUINST_SUCCESS) gpuinst_range_pop_domain(d);
            }
        }
        gpuinst_thread_name(s);
    }
    free(s);
    return 0;
}
