/* hot: a program that spends its time in one known function. */
volatile unsigned long sink;
__attribute__((noinline)) void hot_function(void)
{
	for (unsigned long i = 0; i < 300000000UL; i++)
		sink += i * 7;
}
int main(void) { hot_function(); return 0; }
