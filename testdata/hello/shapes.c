/* shapes.c - area computations */
#include "shapes.h"

int square_area(int side)
{
    return rect_area(side, side);
}

int rect_area(int w, int h)
{
    return multiply(w, h);
}

int triangle_area(int base, int height)
{
    return half(multiply(base, height));
}

int total_area(void)
{
    int sq = square_area(3);
    int re = rect_area(2, 5);
    int tr = triangle_area(4, 6);
    return sum3(sq, re, tr);
}
