/* The one loop of xnnc's runtime that runs in C: a table's rows of XNNPACK set-up and invoke
 * (backend_xnnpack/fused.py). From Python each row costs two ctypes calls (~1-1.5 us each
 * on the machines this project runs on); here the whole table is one call, made without the
 * GIL. XNNPACK's two functions come in as pointers, so this library links against nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int (*xnn_setup_runtime_v2_fn)(void *runtime, size_t count, const void *externals);
typedef int (*xnn_invoke_runtime_fn)(void *runtime);

/* `rows` holds n rows of five words: an xnn_runtime_t, its external value count, the address
 * of its `struct xnn_external_value` array, the address of the runtime's owner word and the
 * row's token (0: the row's words change between calls). A row with a token that its
 * runtime's owner word holds is invoked without a set-up: the runtime's last set-up was this
 * row's, on the same addresses (every other set-up or reshape of the runtime clears the
 * word). Otherwise the row's set-up runs and leaves its token there (0 for a row without
 * one, so that no other row skips its set-up after it).
 *
 * `copies` holds n_in + n_out triples (destination, source, bytes): the first n_in are copied
 * before the rows, the others after them.
 *
 * Returns n when every row ran; else the index of the row that failed, with XNNPACK's status
 * in failure[0] and 0 (set-up) or 1 (invoke) in failure[1]. */
size_t xnnc_run_rows(xnn_setup_runtime_v2_fn setup, xnn_invoke_runtime_fn invoke,
                     const uint64_t *rows, size_t n, const uint64_t *copies, size_t n_in,
                     size_t n_out, int32_t *failure) {
  for (size_t k = 0; k < n_in; k++) {
    const uint64_t *c = copies + 3 * k;
    memcpy((void *)(uintptr_t)c[0], (const void *)(uintptr_t)c[1], (size_t)c[2]);
  }
  for (size_t i = 0; i < n; i++) {
    const uint64_t *row = rows + 5 * i;
    void *runtime = (void *)(uintptr_t)row[0];
    uint64_t *owner = (uint64_t *)(uintptr_t)row[3];
    if (row[4] == 0 || *owner != row[4]) {
      *owner = 0; /* a failed set-up leaves no pointer valid */
      int status = setup(runtime, (size_t)row[1], (const void *)(uintptr_t)row[2]);
      if (status != 0) {
        failure[0] = status;
        failure[1] = 0;
        return i;
      }
      *owner = row[4];
    }
    int status = invoke(runtime);
    if (status != 0) {
      failure[0] = status;
      failure[1] = 1;
      return i;
    }
  }
  for (size_t k = n_in; k < n_in + n_out; k++) {
    const uint64_t *c = copies + 3 * k;
    memcpy((void *)(uintptr_t)c[0], (const void *)(uintptr_t)c[1], (size_t)c[2]);
  }
  return n;
}
