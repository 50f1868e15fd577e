/* The C API (spectral.h) from a C99 program: build a spectral filter, compile
 * it on the host device, run it, check the numbers; every error path returns
 * a code and a message. Prints one line per check and a summary; exits 1 on
 * any failure. Argument: a scratch directory for an artifact. */
#include "spectral/spectral.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int checks = 0, failures = 0;

#define CHECK(condition, what)                                                       \
  do {                                                                               \
    ++checks;                                                                        \
    if (!(condition)) {                                                              \
      ++failures;                                                                    \
      printf("FAIL %s (line %d): %s\n", what, __LINE__, spectral_last_error());     \
    }                                                                                \
  } while (0)

/* y = relu(irfft(rfft(x) * 0.5)) + sum(x) over the row: numbers known in closed form. */
static int build(spectral_graph** out) {
  spectral_graph* g = NULL;
  int64_t shape[2] = {4, 16}, one[1] = {1};
  float half_re_im[2] = {0.5f, 0.0f};
  spectral_value x, spectrum, half, scaled, back, sum, total, y;
  int64_t axes[1] = {1};
  if (spectral_graph_create("filter", &g) != SPECTRAL_OK) return 0;
  int ok = spectral_graph_input(g, SPECTRAL_F32, shape, 2, 0, &x) == SPECTRAL_OK &&
           spectral_graph_transform(g, "rfft", x, axes, 1, SPECTRAL_NORM_BACKWARD, 0, &spectrum) ==
               SPECTRAL_OK &&
           spectral_graph_constant(g, SPECTRAL_C64, one, 0, half_re_im, &half) == SPECTRAL_OK &&
           spectral_graph_binary(g, "mul", spectrum, half, &scaled) == SPECTRAL_OK &&
           spectral_graph_transform(g, "irfft", scaled, axes, 1, SPECTRAL_NORM_BACKWARD, 16,
                                    &back) == SPECTRAL_OK &&
           spectral_graph_reduce(g, "reduce_sum", x, axes, 1, 1, &sum) == SPECTRAL_OK &&
           spectral_graph_binary(g, "add", back, sum, &total) == SPECTRAL_OK &&
           spectral_graph_unary(g, "relu", total, &y) == SPECTRAL_OK &&
           spectral_graph_output(g, &y, 1) == SPECTRAL_OK;
  *out = g;
  return ok;
}

int main(int argc, char** argv) {
  const char* scratch = argc > 1 ? argv[1] : "/tmp";
  spectral_graph* g = NULL;
  spectral_model* model = NULL;
  spectral_compile_options options = spectral_compile_options_default();
  float x[64], y[64], y2[64];
  int64_t shape[2] = {4, 16};
  spectral_tensor in = {x, SPECTRAL_F32, 2, shape}, out = {y, SPECTRAL_F32, 2, shape};
  spectral_tensor out2 = {y2, SPECTRAL_F32, 2, shape}, info;
  char path[1024];
  int i, r, worst = 0;

  CHECK(build(&g), "building the graph");
  CHECK(strstr(spectral_graph_text(g), "spectral.rfft") != NULL, "the graph's text");
  options.device = SPECTRAL_DEVICE_HOST;
  CHECK(spectral_compile(g, &options, &model) == SPECTRAL_OK, "compiling");
  if (model == NULL) {
    printf("%d checks, %d failed\n", checks, failures);
    return 1;
  }
  CHECK(spectral_model_num_inputs(model) == 1 && spectral_model_num_outputs(model) == 1,
        "the signature");
  CHECK(spectral_model_input(model, 0, &info) == SPECTRAL_OK && info.dtype == SPECTRAL_F32 &&
            info.rank == 2 && info.shape[1] == 16,
        "the input's type");
  CHECK(strstr(spectral_model_summary(model), "kernel") != NULL, "the kernel summary");

  for (i = 0; i < 64; ++i) x[i] = (float)sin(0.37 * i) - 0.2f;
  CHECK(spectral_model_run(model, &in, 1, &out, 1) == SPECTRAL_OK, "running");
  for (r = 0; r < 4; ++r) {
    float sum = 0;
    for (i = 0; i < 16; ++i) sum += x[r * 16 + i];
    for (i = 0; i < 16; ++i) {
      float expected = 0.5f * x[r * 16 + i] + sum;
      if (expected < 0) expected = 0;
      if (fabsf(y[r * 16 + i] - expected) > 1e-4f) worst = 1;
    }
  }
  CHECK(!worst, "the results against the closed form");

  /* GPU targets: the model carries their code; a bad one is an error. */
  {
    spectral_model* gpu = NULL;
    spectral_compile_options targeted = options;
    targeted.targets = "sm_80, sm_90";
    CHECK(spectral_compile(g, &targeted, &gpu) == SPECTRAL_OK &&
              strstr(spectral_model_summary(gpu), "sm_90 CUBIN for 2, PTX for 2 of 2 kernels") != NULL,
          "compiling for sm_80 and sm_90");
    spectral_model_free(gpu);
    gpu = NULL;
    targeted.targets = "sm_80,";
    CHECK(spectral_compile(g, &targeted, &gpu) == SPECTRAL_INVALID_ARGUMENT && gpu == NULL &&
              strstr(spectral_last_error(), "unknown target ''") != NULL,
          "an empty target is an error");
  }

  snprintf(path, sizeof path, "%s/c_api_test.spx", scratch);
  CHECK(spectral_model_save(model, path) == SPECTRAL_OK, "saving an artifact");
  {
    spectral_model* loaded = NULL;
    CHECK(spectral_model_load(path, SPECTRAL_DEVICE_HOST, &loaded) == SPECTRAL_OK,
          "loading the artifact");
    CHECK(loaded && spectral_model_run(loaded, &in, 1, &out2, 1) == SPECTRAL_OK &&
              memcmp(y, y2, sizeof y) == 0,
          "the loaded artifact gives the same results");
    spectral_model_free(loaded);
  }
  remove(path);

  /* Errors: codes and messages, never a crash. */
  {
    int64_t wrong[2] = {4, 15};
    spectral_tensor bad = {x, SPECTRAL_F32, 2, wrong};
    spectral_graph* h = NULL;
    spectral_value a, b, c;
    int64_t three[1] = {3}, four[1] = {4};
    spectral_model* none = NULL;
    CHECK(spectral_model_run(model, &bad, 1, &out, 1) == SPECTRAL_ERROR &&
              strstr(spectral_last_error(), "argument #0 must be tensor<4x16xf32>") != NULL,
          "a wrong input shape is an error naming the argument");
    CHECK(spectral_model_run(model, NULL, 1, &out, 1) == SPECTRAL_INVALID_ARGUMENT,
          "null inputs");
    CHECK(spectral_model_load("/nonexistent/x.spx", SPECTRAL_DEVICE_HOST, &none) ==
                  SPECTRAL_ERROR &&
              strstr(spectral_last_error(), "/nonexistent/x.spx") != NULL,
          "a missing artifact names the file");
    CHECK(spectral_graph_create("shapes", &h) == SPECTRAL_OK, "a second graph");
    CHECK(spectral_graph_input(h, SPECTRAL_F32, three, 1, 0, &a) == SPECTRAL_OK &&
              spectral_graph_input(h, SPECTRAL_F32, four, 1, 0, &b) == SPECTRAL_OK,
          "inputs");
    CHECK(spectral_graph_binary(h, "add", a, b, &c) == SPECTRAL_ERROR &&
              strstr(spectral_last_error(), "spectral.add") != NULL,
          "shapes that do not broadcast: an error naming the op");
    CHECK(spectral_graph_unary(h, "no_such_op", a, &c) == SPECTRAL_INVALID_ARGUMENT,
          "an unknown op");
    c.id = 99;
    CHECK(spectral_graph_unary(h, "relu", c, &b) == SPECTRAL_INVALID_ARGUMENT,
          "a value of no graph");
    CHECK(spectral_compile(h, &options, &none) == SPECTRAL_ERROR, "compiling a failed graph");
    spectral_graph_free(h);
    h = NULL;
    CHECK(spectral_graph_parse_file("/nonexistent.mlir", NULL, &h) == SPECTRAL_ERROR && h == NULL &&
              strstr(spectral_last_error(), "/nonexistent.mlir") != NULL,
          "parsing a missing file names it");
  }

  spectral_model_free(model);
  spectral_graph_free(g);
  spectral_model_free(NULL);
  spectral_graph_free(NULL);
  printf("C API: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
