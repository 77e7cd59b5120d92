/* The program each layer's link check builds (CMakeLists.txt, rb_layer):
 * it calls nothing; linking every object of the layer beside it, with only
 * the layers below, is the check. */
int main(void)
{
    return 0;
}
