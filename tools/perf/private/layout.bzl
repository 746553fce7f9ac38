"""Layout variants: a program built again with its code and data at other
addresses, so that the figures layout moves can be calibrated.

A change that edits nothing a program runs (a reworded string in a shared
library, a function added elsewhere) still moves where the linker puts the
program's functions and data, and with them the cache misses Cachegrind
counts: by up to 2% in the neutral corpus of the regression suite, where
reruns of one binary move nothing (docs/noise.md). Each variant is the same
program linked with a padding source of its own before the program's code
and data: the padding is never run, and its sizes, a fixed pseudo-random
function of the variant's number, shift what follows in .text, .rodata,
.data and .bss by a few hundred to a few thousand bytes, as an edit does.
The variants are counted by count actions like the program's own
(perf_counts), cached alike; the spread of a figure over the program and
its variants is the figure's layout noise (//tools/verdict).
"""

load("@io_bazel_rules_go//go:def.bzl", "go_binary", "go_library")

# How many variants each program has beside its own build: the spread of
# five layouts, at the cost of four more count actions per changed program.
LAYOUT_VARIANTS = 4

def _pad_sizes(variant):
    """Bytes of padding for .text, .rodata, .data and .bss of a variant."""

    # A linear congruential generator seeded with the variant's number:
    # fixed per variant (the variants are cached), spread over [0, 4096),
    # which moves code and data across every set of a 32 KiB 8-way cache.
    x = variant
    sizes = []
    for _ in range(4):
        x = (x * 1103515245 + 12345) % 2147483648
        sizes.append(16 + (x >> 16) % 4080)
    return sizes

def _cc_pad(variant, text, rodata, data, bss):
    sections = [
        (".text.havlak_layout_pad", "\\\"ax\\\",@progbits", text),
        (".rodata.havlak_layout_pad", "\\\"a\\\",@progbits", rodata),
        (".data.havlak_layout_pad", "\\\"aw\\\",@progbits", data),
        (".bss.havlak_layout_pad", "\\\"aw\\\",@nobits", bss),
    ]
    lines = [
        "// Layout variant {} (//tools/perf/private/layout.bzl): padding the".format(variant),
        "// program never runs, which moves what the linker puts after it,",
        "// and a few blocks allocated before main and kept, which move what",
        "// the allocator gives the program after them, as a longer string",
        "// of its own would.",
        "",
        "#include <cstdlib>",
        "",
        "asm(",
    ]
    for name, flags, size in sections:
        lines.append("    \".pushsection {},{}\\n.space {}\\n.popsection\\n\"".format(name, flags, size))
    lines += [
        ");",
        "",
        "namespace {",
        "",
        "struct LayoutPadHeap {",
        "  LayoutPadHeap() {",
        "    const int sizes[] = {" + ", ".join([str(8 + n % 249) for n in (text, rodata, data, bss)]) + "};",
        "    for (int i = 0; i < 4; i++) blocks[i] = std::malloc(sizes[i]);",
        "  }",
        "  void* blocks[4];",
        "};",
        "",
        "LayoutPadHeap layout_pad_heap;",
        "",
        "}  // namespace",
    ]
    return "\n".join(lines) + "\n"

def _go_pad(variant, text, rodata, data, bss):
    # Go aligns functions to 32 bytes on amd64: one small function a slot.
    funcs = max(1, text // 32)
    lines = [
        "// Layout variant {} (//tools/perf/private/layout.bzl): padding the".format(variant),
        "// program never runs (but one call at start-up, the same in every",
        "// variant). The linker lays out a program's packages before the",
        "// ones that import them, so this package moves its importer's code,",
        "// package main's.",
        "",
        "package layoutpad",
        "",
        "// layoutPadIndex is always 0, read at run time so that the linker",
        "// keeps everything it indexes.",
        "var layoutPadIndex int",
        "",
        "var layoutPadKept int",
        "",
        "var layoutPadData = [{}]byte{{1}}".format(data),
        "",
        "var layoutPadZeros [{}]byte".format(bss),
        "",
        "const layoutPadText = \"{}\"".format("x" * rodata),
        "",
        "var layoutPadFuncs = [...]func(int) int{",
    ]
    lines += ["\tlayoutPad{},".format(i) for i in range(funcs)]
    lines += [
        "}",
        "",
        "func init() {",
        "\tlayoutPadKept = layoutPadFuncs[layoutPadIndex](int(layoutPadText[layoutPadIndex]) + int(layoutPadData[layoutPadIndex]) + int(layoutPadZeros[layoutPadIndex]))",
        "}",
    ]
    for i in range(funcs):
        lines += ["", "//go:noinline", "func layoutPad{}(x int) int {{ return x + {} }}".format(i, i)]
    return "\n".join(lines) + "\n"

def _go_import(ctx):
    return "// Layout variant {} (//tools/perf/private/layout.bzl).\n\npackage main\n\nimport _ \"{}\"\n".format(ctx.attr.variant, ctx.attr.importpath)

def _layout_pad_impl(ctx):
    text, rodata, data, bss = _pad_sizes(ctx.attr.variant)
    if ctx.attr.language == "go_import":
        out = ctx.actions.declare_file(ctx.label.name + ".go")
        ctx.actions.write(out, _go_import(ctx))
        return [DefaultInfo(files = depset([out]))]
    write = {"c++": (_cc_pad, ".cc"), "go": (_go_pad, ".go")}[ctx.attr.language]
    out = ctx.actions.declare_file(ctx.label.name + write[1])
    ctx.actions.write(out, write[0](ctx.attr.variant, text, rodata, data, bss))
    return [DefaultInfo(files = depset([out]))]

layout_pad = rule(
    implementation = _layout_pad_impl,
    doc = "The padding source of one layout variant: `name + \".cc\"` or `name + \".go\"` (package main).",
    attrs = {
        "language": attr.string(mandatory = True, values = ["c++", "go", "go_import"], doc = "go_import: package main's file that imports the go padding's package."),
        "importpath": attr.string(doc = "go_import's package."),
        "variant": attr.int(mandatory = True, doc = "The variant's number, from 1."),
    },
)

def layout_variant_name(program, variant):
    """The name of a program's layout variant, in the program's package."""
    return "{}_layout_{}".format(program, variant)

def layout_variants(binary):
    """The labels of a program's layout variants, as layout_variant_name names them.

    Args:
      binary: the program's label, "//go/havlak6" or "//go/havlak6:havlak6".

    Returns:
      a list of LAYOUT_VARIANTS labels.
    """
    package, _, name = binary.partition(":")
    if not name:
        name = package.rpartition("/")[2]
    return ["{}:{}".format(package, layout_variant_name(name, v)) for v in range(1, LAYOUT_VARIANTS + 1)]

def layout_pads(program, language):
    """Declares the padding sources of a program's variants.

    Args:
      program: the program's name.
      language: "c++" or "go".

    Returns:
      the padding target of each variant, by variant number from 1.
    """
    pads = []
    for v in range(1, LAYOUT_VARIANTS + 1):
        pad = layout_variant_name(program, v) + "_pad"
        layout_pad(name = pad, language = language, variant = v, visibility = ["//visibility:private"])
        pads.append(":" + pad)
    return pads

def go_layout_variants(program, embed, importpath, **kwargs):
    """The layout variants of a Go program: `layout_variant_name(name, v)`.

    Each is the program's package main (embed) importing a padding package
    of its own, which the linker puts before package main's code and data.

    Its argument is `program`, not `name`: gazelle would take a call with
    a name for a rule of that name, the program's go_binary's twin.

    Args:
      program: the program's name.
      embed: the program's go_library, as its go_binary embeds it.
      importpath: the program's import path; the paddings' are under it.
      **kwargs: the program's other go_binary attributes (pgoprofile).
    """
    for v, pad in enumerate(layout_pads(program, "go"), 1):
        variant = layout_variant_name(program, v)
        pad_importpath = "{}/{}".format(importpath, variant)
        go_library(
            name = variant + "_padlib",
            srcs = [pad],
            importpath = pad_importpath,
            visibility = ["//visibility:private"],
        )
        layout_pad(name = variant + "_import", language = "go_import", variant = v, importpath = pad_importpath)
        go_binary(
            name = variant,
            srcs = [":" + variant + "_import"],
            embed = embed,
            deps = [":" + variant + "_padlib"],
            tags = ["manual"],
            visibility = ["//visibility:public"],
            **kwargs
        )
