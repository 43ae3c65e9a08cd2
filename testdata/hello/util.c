/* util.c - small helpers used by shapes.c and main.c */
#include <stdio.h>
#include "shapes.h"

int multiply(int a, int b)
{
    return a * b;
}

int add(int a, int b)
{
    return a + b;
}

int sum3(int a, int b, int c)
{
    return add(add(a, b), c);
}

int half(int x)
{
    return x / 2;
}

/* the recursive function: factorial(4) enters factorial 5 times */
int factorial(int n)
{
    if (n <= 1)
        return 1;
    return multiply(n, factorial(n - 1));
}

void log_value(const char *label, int value)
{
    printf("%-10s %d\n", label, value);
}
