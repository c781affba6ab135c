// hot.cc: a C++ program whose hot function is a method in a namespace.
namespace sonde {
template <typename T> struct Worker {
	volatile T sink = 0;
	__attribute__((noinline)) void spin(int n)
	{
		for (long i = 0; i < 300000000L / n; i++)
			sink += static_cast<T>(i * 7);
	}
};
}
int main()
{
	sonde::Worker<unsigned long> w;
	w.spin(1);
	return 0;
}
