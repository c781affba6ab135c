// Throws and catches N exceptions: libstdc++'s throw probe fires for each.
#include <cstdlib>
#include <stdexcept>

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 10, caught = 0;
	for (int i = 0; i < n; i++) {
		try {
			throw std::runtime_error("boom");
		} catch (const std::exception &) {
			caught++;
		}
	}
	return caught == n ? 0 : 1;
}
