/* flow: a workload for -F (flowindent). main() calls outer(1) and then
 * outer(2); outer() calls middle(), which calls inner(). None of the calls
 * is a tail call, so each function returns through its own return. */
__attribute__((noinline)) int inner(int x) { return x + 1; }
__attribute__((noinline)) int middle(int x) { return inner(x) * 2; }
__attribute__((noinline)) int outer(int x) { return middle(x) + 3; }

int main(void)
{
	volatile int s = outer(1) + outer(2);
	return s == 0;
}
