// artifact.cc - Program <-> .spx bytes (artifact.h).
#include "runtime/program/artifact.h"

#include "runtime/program/container.h"
#include "runtime/schemas/program_generated.h"

#include <cstring>

namespace spectral {
namespace {

namespace fb = spectral::spx;

constexpr ContainerFormat kFormat{{'S', 'P', 'E', 'C', 'T', 'R', 'A', 'L'},
                                  kArtifactFormatMajor, kArtifactFormatMinor, "artifact"};

flatbuffers::Offset<fb::Program> build_program(flatbuffers::FlatBufferBuilder& b,
                                               const Program& p) {
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const BufferDesc& d : p.buffers)
    buffers.push_back(fb::CreateBuffer(b, b.CreateString(d.name), fb::DType(d.dtype),
                                       b.CreateVector(d.shape), fb::BufferRole(d.role), d.view_of,
                                       d.view_offset, d.constant, d.donated));
  std::vector<flatbuffers::Offset<fb::Constant>> constants;
  for (const std::vector<uint8_t>& bytes : p.constants)
    constants.push_back(fb::CreateConstant(b, b.CreateVector(bytes)));
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelDesc& k : p.kernels) {
    std::vector<flatbuffers::Offset<fb::Binary>> binaries;
    for (const KernelBinary& binary : k.binaries)
      binaries.push_back(fb::CreateBinary(b, b.CreateString(binary.arch),
                                          b.CreateVector(binary.cubin),
                                          b.CreateString(binary.ptx)));
    // Without binaries the field is left out: the kernel is written as format 1.0 wrote it.
    kernels.push_back(fb::CreateKernel(b, b.CreateString(k.source.entry),
                                       b.CreateString(k.source.source),
                                       b.CreateVectorOfStrings(k.source.defines),
                                       b.CreateString(k.ops), k.bytes_read, k.bytes_written,
                                       k.flops, binaries.empty() ? 0 : b.CreateVector(binaries)));
  }
  std::vector<flatbuffers::Offset<fb::Step>> steps;
  for (const Step& s : p.steps) {
    std::vector<fb::Arg> args;
    for (const StepArg& a : s.args) args.emplace_back(fb::ArgKind(a.kind), a.buffer, a.integer, a.real);
    std::vector<fb::InPlace> in_place;
    for (auto [read, written] : s.in_place) in_place.emplace_back(read, written);
    fb::Dim3 grid(s.grid.x, s.grid.y, s.grid.z), block(s.block.x, s.block.y, s.block.z);
    steps.push_back(fb::CreateStep(b, fb::StepKind(s.kind), s.kernel, &grid, &block,
                                   s.shared_bytes, b.CreateVectorOfStructs(args), s.source,
                                   s.target, s.error_word, b.CreateString(s.op),
                                   b.CreateString(s.error_message),
                                   b.CreateVectorOfStructs(in_place), s.chain_parts,
                                   s.chain_local));
  }
  return fb::CreateProgram(b, b.CreateString(p.function), b.CreateVector(buffers),
                           b.CreateVector(constants), b.CreateVector(kernels),
                           b.CreateVector(steps), b.CreateVector(p.inputs),
                           b.CreateVector(p.outputs));
}

std::string text(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

/// The Program of a verified payload; an enum out of range is an error.
StatusOr<Program> parse_program(const fb::Program* in, const std::string& name) {
  auto bad = [&](const std::string& what) {
    return Status::error(name + ": invalid artifact: " + what);
  };
  if (!in) return bad("it holds no program");
  Program p;
  p.function = text(in->function());
  if (in->buffers())
    for (const fb::Buffer* b : *in->buffers()) {
      if (uint8_t(b->dtype()) > uint8_t(fb::DType::Complex128) ||
          uint8_t(b->role()) > uint8_t(fb::BufferRole::Alias))
        return bad("buffer " + std::to_string(p.buffers.size()) + " has an unknown type or role");
      if (!elements_aligned(b->shape()))
        return bad("buffer " + std::to_string(p.buffers.size()) +
                   "'s shape is misaligned (8-byte values off an 8-byte boundary)");
      BufferDesc d;
      d.name = text(b->name());
      d.dtype = DType(b->dtype());
      if (b->shape()) d.shape.assign(b->shape()->begin(), b->shape()->end());
      d.role = BufferRole(b->role());
      d.view_of = b->view_of();
      d.view_offset = b->view_offset();
      d.constant = b->constant();
      d.donated = b->donated();
      p.buffers.push_back(std::move(d));
    }
  if (in->constants())
    for (const fb::Constant* c : *in->constants())
      p.constants.emplace_back(c->bytes() ? std::vector<uint8_t>(c->bytes()->begin(), c->bytes()->end())
                                          : std::vector<uint8_t>());
  if (in->kernels())
    for (const fb::Kernel* k : *in->kernels()) {
      KernelDesc d;
      d.source.entry = text(k->entry());
      d.source.source = text(k->source());
      if (k->defines())
        for (const flatbuffers::String* define : *k->defines()) d.source.defines.push_back(define->str());
      d.ops = text(k->ops());
      d.bytes_read = k->bytes_read();
      d.bytes_written = k->bytes_written();
      d.flops = k->flops();
      if (k->binaries())
        for (const fb::Binary* binary : *k->binaries())
          d.binaries.push_back(
              {text(binary->arch()),
               binary->cubin() ? std::vector<uint8_t>(binary->cubin()->begin(), binary->cubin()->end())
                               : std::vector<uint8_t>(),
               text(binary->ptx())});
      p.kernels.push_back(std::move(d));
    }
  if (in->steps())
    for (const fb::Step* s : *in->steps()) {
      if (uint8_t(s->kind()) > uint8_t(fb::StepKind::Zero))
        return bad("step " + std::to_string(p.steps.size()) + " has an unknown kind");
      if (!elements_aligned(s->args()))
        return bad("step " + std::to_string(p.steps.size()) +
                   "'s arguments are misaligned (8-byte values off an 8-byte boundary)");
      Step d;
      d.kind = Step::Kind(s->kind());
      d.kernel = s->kernel();
      if (s->grid()) d.grid = {s->grid()->x(), s->grid()->y(), s->grid()->z()};
      if (s->block()) d.block = {s->block()->x(), s->block()->y(), s->block()->z()};
      d.shared_bytes = s->shared_bytes();
      if (s->args())
        for (const fb::Arg* a : *s->args()) {
          if (uint8_t(a->kind()) > uint8_t(fb::ArgKind::Float64))
            return bad("step " + std::to_string(p.steps.size()) + " has an argument of unknown kind");
          d.args.push_back({StepArg::Kind(a->kind()), a->buffer(), a->integer(), a->real()});
        }
      d.source = s->source();
      d.target = s->target();
      d.error_word = s->error_word();
      d.op = text(s->op());
      d.error_message = text(s->error_message());
      if (s->in_place())
        for (const fb::InPlace* pair : *s->in_place()) d.in_place.push_back({pair->read(), pair->written()});
      d.chain_parts = s->chain_parts();
      d.chain_local = s->chain_local();
      p.steps.push_back(std::move(d));
    }
  if (in->inputs()) p.inputs.assign(in->inputs()->begin(), in->inputs()->end());
  if (in->outputs()) p.outputs.assign(in->outputs()->begin(), in->outputs()->end());
  if (Status status = p.validate(); !status) return bad(status.message());
  return p;
}

/// The verified payload of artifact bytes, or the error naming what is wrong.
StatusOr<const fb::Artifact*> verified(const std::vector<uint8_t>& bytes, const std::string& name) {
  StatusOr<std::pair<const uint8_t*, size_t>> payload = unwrap_payload(kFormat, bytes, name);
  if (!payload) return payload.status();
  flatbuffers::Verifier verifier(payload->first, payload->second, /*max_depth=*/64,
                                 /*max_tables=*/1u << 24);
  if (!fb::VerifyArtifactBuffer(verifier))
    return Status::error(name + ": invalid artifact: its payload fails the FlatBuffers verifier");
  return fb::GetArtifact(payload->first);
}

}  // namespace

bool looks_like_artifact(const std::vector<uint8_t>& bytes) { return has_magic(kFormat, bytes); }

std::vector<uint8_t> write_artifact(const Artifact& artifact) {
  flatbuffers::FlatBufferBuilder b(1 << 16);
  auto program_offset = build_program(b, artifact.program);
  b.Finish(fb::CreateArtifact(b, b.CreateString(artifact.producer), program_offset,
                              b.CreateString(artifact.graph), b.CreateString(artifact.graph_name)),
           fb::ArtifactIdentifier());
  return wrap_payload(kFormat, b.GetBufferPointer(), b.GetSize());
}

StatusOr<Artifact> read_artifact(const std::vector<uint8_t>& bytes, const std::string& name) {
  StatusOr<const fb::Artifact*> in = verified(bytes, name);
  if (!in) return in.status();
  StatusOr<Program> program = parse_program((*in)->program(), name);
  if (!program) return program.status();
  Artifact artifact;
  artifact.program = std::move(*program);
  artifact.producer = text((*in)->producer());
  artifact.graph = text((*in)->graph());
  artifact.graph_name = text((*in)->graph_name());
  return artifact;
}

Status save_artifact(const Artifact& artifact, const std::string& path) {
  return write_file_atomically(path, write_artifact(artifact));
}

StatusOr<Artifact> load_artifact(const std::string& path) {
  StatusOr<std::vector<uint8_t>> bytes =
      read_regular_file(path, kMaxArtifactBytes + kContainerHeaderBytes, "artifact");
  if (!bytes) return bytes.status();
  return read_artifact(*bytes, path);
}

}  // namespace spectral
