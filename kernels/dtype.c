/* The element types: names, sizes, unit roundoff. Kept apart from the
 * registry so that code which only parses or prints a dtype (the command
 * line, the fuzz targets) needs no kernel. */
#include <string.h>

#include "kernel.h"

const char *rb_dtype_name(rb_dtype dt)
{
    return dt == RB_F32 ? "f32" : "f64";
}

size_t rb_dtype_size(rb_dtype dt)
{
    return dt == RB_F32 ? sizeof(float) : sizeof(double);
}

double rb_dtype_eps(rb_dtype dt)
{
    return dt == RB_F32 ? 0x1p-23 : 0x1p-52;
}

int rb_dtype_parse(const char *s, rb_dtype *dt)
{
    if (strcmp(s, "f32") == 0) {
        *dt = RB_F32;
        return 0;
    }
    if (strcmp(s, "f64") == 0) {
        *dt = RB_F64;
        return 0;
    }
    return -1;
}

const char *rb_access_name(rb_access a)
{
    return a == RB_ACCESS_READ ? "read" : "mixed";
}
