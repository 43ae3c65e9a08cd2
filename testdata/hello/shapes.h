#ifndef SHAPES_H
#define SHAPES_H

/* shapes.c */
int square_area(int side);
int rect_area(int w, int h);
int triangle_area(int base, int height);
int total_area(void);

/* util.c */
int multiply(int a, int b);
int add(int a, int b);
int sum3(int a, int b, int c);
int half(int x);
int factorial(int n);
void log_value(const char *label, int value);

#endif
