/* The one loop of xnnc's runtime that runs in C: a table's rows of XNNPACK set-up and invoke
 * (backend_xnnpack/fused.py). From Python each row costs two ctypes calls (~1-1.5 us each
 * on the machines this project runs on); here the whole table is one call, made without the
 * GIL. XNNPACK's two functions come in as pointers, so this library links against nothing.
 */
#include <stddef.h>
#include <stdint.h>

typedef int (*xnn_setup_runtime_v2_fn)(void *runtime, size_t count, const void *externals);
typedef int (*xnn_invoke_runtime_fn)(void *runtime);

/* `rows` holds n rows of three words: an xnn_runtime_t, its external value count, and the
 * address of its `struct xnn_external_value` array. Each runtime is set up from its row,
 * then invoked. Returns n when every row ran; else the index of the row that failed, with
 * XNNPACK's status in failure[0] and 0 (set-up) or 1 (invoke) in failure[1]. */
size_t xnnc_run_rows(xnn_setup_runtime_v2_fn setup, xnn_invoke_runtime_fn invoke,
                     const uint64_t *rows, size_t n, int32_t *failure) {
  for (size_t i = 0; i < n; i++) {
    void *runtime = (void *)(uintptr_t)rows[3 * i];
    int status = setup(runtime, (size_t)rows[3 * i + 1], (const void *)(uintptr_t)rows[3 * i + 2]);
    if (status == 0) {
      status = invoke(runtime);
      if (status != 0) {
        failure[0] = status;
        failure[1] = 1;
        return i;
      }
    } else {
      failure[0] = status;
      failure[1] = 0;
      return i;
    }
  }
  return n;
}
