#include "shapes.h"

// Same name as a.cpp's: a different function.
static int twice(int x) { return x + x + 100; }

int b_value(int x) { return twice(x) - 1; }
