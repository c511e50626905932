/*
 * tests/capture/standin_libcuda.c: an empty libcuda.so.1, for the GPU
 * script's dry run on a machine without a driver: its preflight finds a
 * driver library, and the test program's first CUDA call fails on it as on
 * a host whose driver cannot serve it.  Owner: cupti_capture.
 */
int tixcap_standin_libcuda(void);
int tixcap_standin_libcuda(void) { return 0; }
