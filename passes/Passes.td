//===- Passes.td - dlc passes ---------------------------------------------===//
#ifndef DLC_PASSES
#define DLC_PASSES

include "mlir/Pass/PassBase.td"

def WidenNarrowFloats : Pass<"dlc-widen-narrow-floats", "mlir::func::FuncOp"> {
  let summary = "Compute f16/bf16 contractions, windows, reductions and softmax in f32";
  let description = [{
    Matmul, gemm, conv, pools, batch norm, softmax and reductions on float16
    or bfloat16 tensors get their operands cast to f32 and their result cast
    back: sums over many terms keep f32 precision and round once, as
    onnxruntime's and cuDNN's half-precision kernels accumulate in f32.
    (Elementwise ops widen per element in dlc-lower-to-linalg.)
  }];
}

def SoftmaxToRowLoops : Pass<"dlc-softmax-to-row-loops", "mlir::func::FuncOp"> {
  let summary = "Softmax and LogSoftmax over innermost elements as one vector loop nest a row";
  let description = [{
    A static f32 Softmax or LogSoftmax over the last dim (or coerce_2d's
    flattened tail) becomes an scf.forall over its rows whose body is
    vector code on tensors: the row's max, exp(x - max) and its sum
    (Softmax writes it to the output row), then the row scaled by one
    reciprocal, or x - (max + log(sum)). Chunks of four vectors, then of
    one, then one per set bit of the rest: every access in bounds. Others
    are left to dlc-lower-to-linalg.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of a vector register (a power of two)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect", "mlir::math::MathDialect",
                           "mlir::arith::ArithDialect"];
}

def LowerToLinalg : Pass<"dlc-lower-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower dlc ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Conv becomes a linalg convolution on a zero-padded input with the bias
    broadcast into the accumulator; pools pad with the neutral element and
    average pool divides by a compile-time count table; Gemm/MatMul become
    linalg.matmul / batch_matmul; everything elementwise becomes one
    linalg.generic with numpy broadcasting in its indexing maps.
    With `max-workspace-bytes`, a conv input gradient whose column buffer
    [N, C*KH*KW, OH*OW] would be larger runs in batch chunks (an scf.for),
    as dlc-conv-to-im2col does for convs.
  }];
  let options = [
    Option<"maxWorkspaceBytes", "max-workspace-bytes", "int64_t", /*default=*/"0",
           "largest conv-gradient column buffer (0: no limit)">,
    Option<"foldPoolPadding", "fold-pool-padding", "bool", /*default=*/"false",
           "padded max pooling reads its input in place, -inf outside it, "
           "instead of a padded copy (the GPU's choice)">,
    Option<"partialReductionLanes", "partial-reduction-lanes", "bool", /*default=*/"false",
           "float sums (ReduceSum/Mean, GlobalAveragePool) whose innermost size "
           "neither 8 nor 4 lanes divide go in the most lanes from 5 to 7 that "
           "do (a 7x7 map in 7: the CPU's choice), else one chain an output">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect"];
}

def ConvToOuterProducts : Pass<"dlc-conv-to-outer-products", "mlir::func::FuncOp"> {
  let summary = "Run small convolutions and image stems as outer products per output row, without im2col";
  let description = [{
    For the CPU back end, before dlc-conv-to-im2col. A static f32
    `linalg.conv_2d_nchw_fchw` with a constant filter, unit dilations, a
    window larger than 1x1 and at most `max-multiply-adds` multiply-adds
    becomes an `scf.forall` over (batch, filter block, output row) whose
    body keeps register tiles of the row: [filters, pixels] in chunks one
    vector wide, or [pixels, filters] with the filters in the vector lanes
    where they fill whole vectors (stride 1 only). It sums the outer
    products of each tap's input row (a contiguous read of the padded
    input; with a stride, every stride-th element of a contiguous read) and
    the tap's filter values (the filter re-packed at compile time as [C,
    KH, KW, F]) over (channel, tap row, tap column), starting from the bias
    (a fill or a broadcast [F] tensor), and applies a following elementwise
    op of the conv's output and per-filter [F] vectors (an activation, or a
    BatchNorm and activation) in registers before writing the row. The tile
    uses at most `max-accumulators` vectors of `vector-width` lanes. A
    larger conv whose window rows for one output row (C x KH input rows)
    take at most `max-window-row-bytes` (an image stem) is rewritten too,
    in tiles of 8 filters by 2 vectors of the row, one after the other
    along it. Other larger convs keep the im2col GEMM. With
    `read-around-padding`, an input that is a zero `tensor.pad` of its H
    and W is read from the pad's source: tap rows outside it are left out
    of the tap-row loop's bounds and a read that starts or ends outside a
    row is moved inside it, its lanes past the row shuffled in as zeros
    (no padded copy of the input; where one read is wider than the row,
    the pad stays).
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of a vector register">,
    Option<"maxAccumulators", "max-accumulators", "int64_t", /*default=*/"12",
           "vector registers the row's tile may hold">,
    Option<"maxMultiplyAdds", "max-multiply-adds", "int64_t", /*default=*/"524288",
           "largest conv (F * C * KH * KW * OH * OW) rewritten">,
    Option<"maxWindowRowBytes", "max-window-row-bytes", "int64_t", /*default=*/"0",
           "a larger conv is rewritten too, in tiles of 8 filters by 2 vectors, "
           "where one output row's window (C x KH input rows) takes at most "
           "these bytes and its filters are a multiple of 8 (0: none)">,
    Option<"readAroundPadding", "read-around-padding", "bool", /*default=*/"true",
           "read a zero-padded input's source, the padding's taps skipped or "
           "shuffled in as zeros, instead of a padded copy">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect"];
}

def ConvToIm2Col : Pass<"dlc-conv-to-im2col", "mlir::func::FuncOp"> {
  let summary = "Rewrite NCHW convolutions as im2col + GEMM";
  let description = [{
    linalg.conv_2d_nchw_fchw becomes an im2col gather and a GEMM-shaped
    linalg.generic, which tile-and-vectorize then treats like a matmul.
    1x1 stride-1 unpadded convs need no gather and become the GEMM directly
    through the same upstream rewrite.
    With `max-workspace-bytes`, a conv whose im2col buffer would be larger
    runs in chunks (an scf.for), each with an im2col buffer under the limit
    that every chunk reuses: batch chunks where the batch allows it (the
    outputs are disjoint), else input-channel chunks accumulated into the
    output (the conv is linear in its channels; a weight gradient's batch
    of one). Same FLOPs, summed in another order.
    With `pack-rows` (the CPU's register-tile rows), a conv with a constant
    filter gets the register tile's layout: the filter re-packed at compile
    time into panels [F'/rows, K, rows] (zero rows up to F'), the pixels of
    the columns and of the accumulator padded to a multiple of `pad-lanes`,
    and the GEMM a generic (n, panel, row, pixel, k) whose result is a view
    of the padded accumulator's first F x P corner. Every register tile is
    then full; padding columns hold garbage that no one reads. Past 16
    tiles, im2col columns are padded to an odd number of tiles (L1's sets),
    except those dlc-tile-and-vectorize builds per cache tile
    (`fused-columns-depth`, dlc::fusedColumnRows). A packed conv
    that starts from a per-filter bias starts from zeros instead, the bias
    added after it: by its one user where that is an elementwise generic
    (added to the conv's value first), else by an add of its own that its
    users read. dlc-tile-and-vectorize starts register tiles from a fill in
    registers, not from a bias written over the output. A transposed tile
    (rows of pixels) packs its columns into [N, P'/R, K, R]; where R is the
    map's width, those are the input's rows, and an input that an scf.forall
    writes a channel plane at a time for this conv alone (a narrow depthwise
    conv's) is written in that layout by the forall itself instead of
    transposed after it (dlc::writePlanesTransposed). An im2col conv whose
    tile rows are its output's rows (ResNet's 3x3 stride-2 convs onto 14x14
    and 7x7 maps, its 7x7 3x3 convs on 8 lanes) gathers its columns
    straight into the tiles ([N, OH, C, KH, KW, OW], dlc::ColumnOrder's
    RowsOuter, marked dlc.row_tile_columns), with no transpose after it
    (session 56: on the device at 16 threads, each such transpose ran on 7
    or 14 of them).
  }];
  let options = [
    Option<"maxWorkspaceBytes", "max-workspace-bytes", "int64_t", /*default=*/"0",
           "largest im2col buffer (0: no limit)">,
    Option<"cacheWorkspaceBytes", "cache-workspace-bytes", "int64_t", /*default=*/"0",
           "without max-workspace-bytes: batch chunks whose im2col buffer stays under this (0: off)">,
    Option<"packRows", "pack-rows", "int64_t", /*default=*/"0",
           "register-tile rows: constant filters re-packed into row panels (0: off)">,
    Option<"padLanes", "pad-lanes", "int64_t", /*default=*/"16",
           "with pack-rows, pixels padded to a multiple of this (register-tile lanes)">,
    Option<"narrowLanes", "narrow-lanes", "int64_t", /*default=*/"0",
           "with pack-rows, GEMMs whose pixels pad-lanes pads over 1/8 more than "
           "this are padded to it instead; 1x1 convs' GEMMs in under 16 tiles "
           "that pad-lanes pads more pad to it for a tail tile (0: never)">,
    Option<"minTailPanels", "min-tail-panels", "int64_t", /*default=*/"32",
           "with narrow-lanes: filter panels a 1x1 conv's GEMM needs for a tail tile "
           "(dlc::minTailPanelsFor)">,
    Option<"depthTile", "depth-tile", "int64_t", /*default=*/"0",
           "with narrow-lanes: dlc-tile-and-vectorize's K cache tile (its cache-k); "
           "1x1 convs' GEMMs it splits along K take no tail tile (0: unknown, none split)">,
    Option<"transposedFilterBytes", "transposed-filter-bytes", "int64_t", /*default=*/"0",
           "with pack-rows: GEMMs whose filter is over this many bytes keep the row "
           "panels where they would take the transposed tile in rows of 7 to 12 "
           "pixels (0: no bound)">,
    Option<"foldPadding", "fold-padding", "bool", /*default=*/"false",
           "unpacked im2col reads a zero-padded input's source, zeros outside it, "
           "instead of a padded copy">,
    Option<"fusedColumnsDepth", "fused-columns-depth", "int64_t", /*default=*/"0",
           "with pack-rows: GEMMs of at most this depth whose columns "
           "dlc-tile-and-vectorize builds per cache tile (dlc::fusedColumnRows) "
           "keep their pixels unpadded past whole tiles (0: none)">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", /*default=*/"524288",
           "a core's L2: columns under it are not built per cache tile">,
    Option<"implicitGemm", "implicit-gemm", "bool", /*default=*/"false",
           "f32 convs with a constant filter and over 16 filters: columns in (tap, "
           "channel) order, the filter permuted to match, the gather marked for "
           "dlc-implicit-gemm">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::bufferization::BufferizationDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect"];
}

def ConvToWinograd : Pass<"dlc-conv-to-winograd", "mlir::func::FuncOp"> {
  let summary = "Rewrite 3x3 stride-1 NCHW convolutions with constant filters as Winograd F(m x m, 3 x 3)";
  let description = [{
    A linalg.conv_2d_nchw_fchw with a constant 3x3 filter, stride and
    dilation 1, becomes Winograd's minimal filtering (Lavin & Gray 2016):
    m x m output tiles (m = 4 or 2, the largest up to `max-tile` that
    divides both output dims) from (m+2)^2 input patches, with (m+2)^2
    GEMMs [F, C] x [C, tiles] instead of one [F, 9C] x [9C, pixels] (2.25x
    fewer multiplies for m = 2, 4x for m = 4). The filter transform G g Gt
    runs at compile time, packed into the register tile's row panels
    [(m+2)^2, F'/rows, C, rows]. At run time: a copy of the input with each
    row split into its m phases (the one gather; a zero-padded input is
    padded to whole tiles of m columns, so that no tile's column is
    clamped and the gather lowers to contiguous loads), the input transform
    Bt d B as two generics (rows, then columns) whose terms come from
    constant tables, each stage's own index inside the channel (a
    channel's rows serve all its terms from cache), the GEMMs as one
    contraction generic (ab, n, panel, row, tile, c) over tiles padded to
    `pad-lanes`, and the output transform
    At M A: a row stage (a generic), then the column stage as vector code,
    an scf.forall over output rows whose `vector-width`-tile blocks
    interleave their m results into contiguous outputs. That stage starts
    from the conv's accumulator (a fill or [F] bias broadcast is added in
    registers, anything else read back) and applies the elementwise
    generic that reads the conv's result (BatchNorm, activation, residual
    add; per-filter operands as one scalar a row) before the store.
    Convs with fewer than `min-pixels` output pixels or `min-channels`
    input or output channels are left to dlc-conv-to-im2col (the transforms
    and the (m+2)^2/9 times larger filter cost more than the multiplies
    saved). Batched convs run in image chunks whose transformed input
    stays under `cache-workspace-bytes`.
  }];
  let options = [
    Option<"maxTile", "max-tile", "int64_t", /*default=*/"4",
           "largest output tile m (2 or 4; below 2: off)">,
    Option<"minPixels", "min-pixels", "int64_t", /*default=*/"49",
           "fewest output pixels (OH x OW) for Winograd">,
    Option<"minChannels", "min-channels", "int64_t", /*default=*/"16",
           "fewest input and output channels for Winograd">,
    Option<"packRows", "pack-rows", "int64_t", /*default=*/"6",
           "register-tile rows: the transformed filter's row panels">,
    Option<"padLanes", "pad-lanes", "int64_t", /*default=*/"16",
           "tiles padded to a multiple of this (register-tile lanes)">,
    Option<"narrowLanes", "narrow-lanes", "int64_t", /*default=*/"0",
           "GEMMs whose tiles pad-lanes pads over 1/8 more than this are padded "
           "to it instead (0: never)">,
    Option<"transposedFilterBytes", "transposed-filter-bytes", "int64_t", /*default=*/"0",
           "as dlc-conv-to-im2col's, for the GEMMs and for im2col's layout it weighs "
           "against (0: no bound)">,
    Option<"cacheWorkspaceBytes", "cache-workspace-bytes", "int64_t", /*default=*/"0",
           "batch chunks whose transformed input stays under this (0: whole batch)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of a vector register: tiles per vector in the output transform's column stage">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect", "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect", "mlir::bufferization::BufferizationDialect",
                           "mlir::vector::VectorDialect"];
}

def PackMatmulWeights : Pass<"dlc-pack-matmul-weights", "mlir::func::FuncOp"> {
  let summary = "Re-pack constant matmul weights into column panels for the register tile";
  let description = [{
    A linalg.matmul C[M, N] += A[M, K] x W[K, N] whose W is a constant gets
    W re-packed at compile time into panels [N/lanes, K, lanes] and becomes
    a contraction generic over (m, panel, lane, k) writing C viewed as
    [M, N/lanes, lanes]: the register tile then reads one contiguous row of
    `lanes` weights per k, instead of rows N floats apart that fall into the
    same L1 sets when N is a large power of two. Matrix-vector products
    (M < 4) take panels of `matvec-lanes` (one vector; 0 leaves them as
    they are): their register tile spans several panels, one vector
    register each (see dlc-tile-and-vectorize). With
    `matvec-panel-vectors` V, a panel is the widest of V, V/2, ... vectors
    whose padding stays within an eighth: the register tile then reads its
    k step's weights as one contiguous run instead of one stream a panel.
    N a multiple of `matvec-lanes` but not of `lanes` takes panels of
    `matvec-lanes`. N over one panel and within an eighth of a whole number
    of them (a classifier's 1000 outputs: 63 panels of 16) is padded with
    zero columns: the product then starts from zeros over the padded width, is
    sliced back to N, and C is added to it (a tensor.pad of C, a bias
    broadcast, lost all but its last vector's write in LLVM 19's folding
    of insert_slice into transfer_write). Other N are left as they are.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "register-tile lanes (n-vectors x vector width)">,
    Option<"matvecLanes", "matvec-lanes", "int64_t", /*default=*/"8",
           "panel lanes of matrix-vector products (the vector width; 0: not packed)">,
    Option<"matvecPanelVectors", "matvec-panel-vectors", "int64_t", /*default=*/"1",
           "most vectors of matvec-lanes in one matrix-vector panel (a power of two)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def TileAndVectorize : Pass<"dlc-tile-and-vectorize", "mlir::func::FuncOp"> {
  let summary = "Cache- and register-tile contractions, then vectorize linalg ops";
  let description = [{
    Contractions (matmul, batch matmul, im2col and 1x1 GEMMs): cache tiles
    over the parallel M/N dims as one scf.forall (the iterations the thread
    pool shares out), a sequential K loop, then a `rows` x (`n-vectors` x
    vector-width) register tile over one k step. Cache tiles divide the dims where they
    can; register loops are peeled, so full tiles and remainders vectorize
    with static shapes (masks only where a tile is partial in two dims).
    GEMMs over filter panels (dlc-conv-to-im2col's packed layout) take the
    whole panel as the register tile's rows and order the loops so that the
    L1-friendly operand stays (see TileAndVectorize.cpp). Constant pads
    become a fill and a copy into the interior, and zero fills shared by
    several accumulations are cloned per accumulation, before tiling.
    A GEMM's cache tiles also take the constant fill it accumulates into and,
    for whole tiles, the elementwise op that reads its result (a conv's
    bias, BatchNorm, activation or residual add, whose reshapes are first
    moved past it), computed in place on the tile after the K loop
    (passes/GemmTileFusion.h). A panel GEMM small enough for L2 gets at
    least `min-forall-tiles` cache tiles (single panels by pixel tiles), so
    that the threads' shares differ by little; a larger one with fewer than
    64 cache tiles takes its panels in smaller groups, inside the pixel
    tiles, until there are 64 (or single panels); one with under 4 pixel
    tiles (ResNet-50's 7x7 maps) takes its panels in groups that make 64.
    With `l2-cache-bytes` of 1 MB or more, a panel GEMM writing over half
    of it from columns within half of it goes panel by panel over all its
    pixels (in chunks where the panels alone make fewer than 64 cache
    tiles), so that its output and residual rows are sequential streams.
    With `cache-k` of 1024 or more, K up to a quarter over it goes whole.
    A panel GEMM of at least 32 panels and K whole whose pixels are a
    multiple of vector-width but not of n-vectors x vector-width
    (dlc-conv-to-im2col's 16-lane tail: 208 pixels) takes them whole in
    each cache tile, in full register tiles and one peeled tail a vector
    wide, its epilogue fused into both; others take one-vector tiles.
    A transposed panel (pixels as the register tile's rows, filters along
    `n-vectors` vectors) is one panel up to n-vectors x vector-width lanes
    wide.
    With `fuse-columns`, a panel GEMM whose columns are an im2col generic's
    (reshaped, unpadded) that dlc::fusedColumnRows allows (one image, K
    whole, columns over `l2-cache-bytes`) builds them in its cache tiles:
    tiles of whole output rows and all panels, the im2col tiled to the
    tile's rows into a block of the iteration's own (a thread's stack, see
    dlc-parallel-scratch-on-stack), gathers vectorized there, and the block
    kept in L1 while the panels pass (an odd number of register tiles wide).
    A GEMM with fewer rows than `rows` (a batch-1 fully connected layer) widens its register tile
    along N instead, up to twelve accumulators, and splits its weight panels
    into two cache tiles at least (the threads share the weights); where
    its weights are over half of `l2-cache-bytes`, its register tiles span
    at most 64 lanes (MobileNetV2's 5 MB classifier: 21 tiles of three
    16-lane panels, fewer weight streams at a time from L3).
    All-parallel generics: one forall iteration per row, vectors along the
    innermost dim; rows of at most two vectors a plane per iteration, and
    where that leaves under 64 iterations (and 64 blocks of rows would
    still hold 1 KB each: a pixelRows GEMM's packing transpose, [N, OH, K,
    OW], not a pad's border columns), blocks of rows instead; im2col
    columns marked dlc.row_tile_columns an output row and a block of
    channels per iteration (session 56, ResNet-50 at 16 threads on the
    device: its packing transposes took 7% of the time, on 7 or 14
    threads; ResNet-18 and -50 here ran 0.987-0.990 of their time at one
    and two threads, with the gathers into row tiles). NCHW
    depthwise/grouped convs and pools that
    dlc-depthwise-conv-to-taps and dlc-pooling-to-taps left (no upstream
    vectorizer): generalized with the output's innermost dim as the innermost
    loop, for LLVM's loop vectorizer, and a forall over channel blocks.
    A generic that gathers (tensor.extract) from a strided view first gets
    a contiguous copy of it: the vectorized gather's offsets assume one.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of the target's vector registers (8 AVX2, 16 AVX-512)">,
    Option<"rows", "rows", "int64_t", /*default=*/"4",
           "rows of the register tile (accumulator rows)">,
    Option<"nVectors", "n-vectors", "int64_t", /*default=*/"2",
           "vectors along N in the register tile">,
    Option<"maxAccumulators", "max-accumulators", "int64_t", /*default=*/"12",
           "most accumulator vectors of a panel GEMM's register tile (12 of 16 "
           "registers; 24 where there are 32)">,
    Option<"cacheM", "cache-m", "int64_t", "64", "cache tile along M">,
    Option<"cacheN", "cache-n", "int64_t", "128", "cache tile along N">,
    Option<"cacheK", "cache-k", "int64_t", "256", "cache tile along K">,
    Option<"fuseColumns", "fuse-columns", "bool", /*default=*/"false",
           "build an im2col GEMM's columns per cache tile of output rows, in the "
           "GEMM's parallel loop, where dlc::fusedColumnRows allows">,
    Option<"l2CacheBytes", "l2-cache-bytes", "int64_t", /*default=*/"524288",
           "a core's L2: columns under it are built once, whole">,
    Option<"minTailPanels", "min-tail-panels", "int64_t", /*default=*/"32",
           "filter panels a GEMM needs for a peeled pixel tail (dlc::minTailPanelsFor; "
           "as dlc-conv-to-im2col's)">,
    Option<"minForallTiles", "min-forall-tiles", "int64_t", /*default=*/"8",
           "cache tiles a panel GEMM with operands in L2 is split into at least, "
           "for an even share among threads (0: off)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def FuseParallelLoops : Pass<"dlc-fuse-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Fuse adjacent scf.parallel loops of equal bounds that do not depend across iterations";
  let description = [{
    On buffers, before dlc-outline-parallel-loops: an scf.parallel followed
    (past side-effect-free ops only) by one with the same bounds and steps
    takes the second's body after its own, when neither loop writes an
    element the other touches in another iteration. Buffers are told apart
    by their root (allocations, globals and entry arguments never overlap)
    and, in one buffer, by static subviews whose index ranges miss each
    other in some dim, or by each induction variable confining both
    accesses to the same window of some dim (iteration c of each touches
    channel c only). A pad's frame fills, each too small for the thread
    pool, then run with its interior copy, and the depthwise taps that read
    the padded channel right after it, channel by channel. Static
    allocations between the loops move above the first.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def HoistVectorTransfers : Pass<"dlc-hoist-vector-transfers", "mlir::func::FuncOp"> {
  let summary = "Keep loop-invariant vector transfers (GEMM accumulators) in registers";
  let description = [{
    On buffers: a transfer_read/transfer_write pair of the same tile inside a
    k loop becomes a loop-carried vector, so the register tile is loaded once
    before the reduction loop and stored once after it (upstream
    linalg::hoistRedundantVectorTransfers, run to a fixed point). Upstream
    gives up on transfers through views; a pair through a view (a GEMM tile
    of a packed-panel accumulator, a subview of a reshape) moves too when
    the loop writes nothing else and reads nothing else of the same root
    buffer. First, a transfer_write storing back unchanged what a
    transfer_read just loaded from the same place (nothing written in
    between) goes with its read: bufferization's copy of a slice onto
    itself, which on the zero frame of a depthwise conv's padded input cost
    a store-forwarding stall a row.
  }];
}

def PrefetchGemmOperands : Pass<"dlc-prefetch-gemm-operands", "mlir::func::FuncOp"> {
  let summary = "Software-prefetch what a GEMM register tile's k loop streams";
  let description = [{
    On buffers, after the accumulators left the k loops: in a register
    tile's k loop (a loop carrying vectors around a vector.contract), a
    vector.transfer_read indexed by the loop's induction variable (or by it
    plus a K chunk's offset, through an arith.addi or an affine.apply with
    coefficient 1) gets a memref.prefetch of the same read some steps on:
    - a weight (a memref.get_global, through views): `distance-bytes` further
      along that dim. Packed filter panels are contiguous, so past a panel's
      end that is the next panel's start.
    - another operand whose k step moves more than a cache line (columns
      read in place: a 1x1 conv's activation rows, P floats apart):
      `column-steps` steps on; where the k loop has at most twice that
      many steps (a 1x1 conv of 16 or 32 channels, whose rows the
      prefetch would mostly run past), the same row `column-tiles-ahead`
      column tiles further along instead; where the k loop has at most
      `next-tile-max-steps` steps and the loop around it steps over column
      tiles (moves the read's column index), the same row one tile further
      along, the line that step reads next. Packed column tiles (a line a
      step or less) stream in order and are left alone.
    And (`epilogue-tiles`) the reads after the k loop, the epilogue's (a
    residual tile, a line per row), get one prefetch per line before the
    loop, at indices computed there.

    Why: a weight is read from memory once per run, and where a GEMM has few
    columns (ResNet-50's 7x7 and 14x14 maps, Winograd's tile GEMMs) each
    panel serves one register tile and the k loop waits on it: the hardware
    prefetcher does not run far enough ahead. Columns P floats apart touch a
    new line and, every few steps, a new page each k step, more lines than
    L1's sets hold at that stride; the prefetcher does not follow strides
    across pages. Measured (A/B, one process, this VM's Zen 3, 1 thread):
    weights alone took ResNet-50's 14x14 Winograd GEMMs from 0.95 to 0.80
    ms each; columns as well took ResNet-50 from 82.3 to 79.6 ms (2
    threads: 43.5 -> 42.0), ResNet-18 27.2 -> 27.0, MobileNetV2 9.35 ->
    9.28. The column distance mattered little (4 to 32 steps within 0.4%).
    The epilogue's reads then took ResNet-50 from 84.2 to 82.9 ms (2
    threads: 44.9 -> 43.9), ResNet-18 and MobileNetV2 2-2.6% (a slower hour
    of the same VM). A row that is not whole lines (a transposed tile's 14
    pixels: 56 bytes at 56-byte steps, most rows across two lines) also
    gets its last element prefetched (session 69, Zen 5, one thread): the
    256 -> 1024 1x1 conv with its residual over 14x14 at batch 8, alone,
    7.13 -> 5.26 ms (perf: the epilogue's first residual loads had most of
    its samples); in ResNet-50 at batch 8, that conv class 32.8-32.9 ->
    27.9-29.8 ms a call (`bench/layer_compare.py`, two runs each). Prefetching the epilogue's stores for writing did
    nothing measurable and is not done. The short-k variant took
    MobileNetV2's 16 -> 96 channel 1x1 conv at 112x112 (k = 16) from 0.57
    to 0.49 ms (fastest of 300 calls, 1 thread); 1 and 4 tiles ahead
    measured the same as 2. Until session 55 a k loop of exactly twice
    the steps (32 channels) took k steps ahead, half of them past its rows:
    short, MobileNetV2's 32 -> 16 channel 1x1 conv at 112x112 went from
    0.149 to 0.139 ms alone (Zen 4, 1 thread; 4 and 8 tiles ahead the
    same), the model 0.997 of its time (12 paired rounds). Reads at a K
    chunk's offset plus the induction
    variable had gone without (session 40, Sapphire Rapids, one thread,
    per-call pairs): with them a 2048^3 matmul went from 0.67 to 0.88 of
    OpenBLAS and ResNet-50 ran 3% faster. The next tile (session 58, Zen
    4, one thread, convs alone, tenth percentile of 400 calls): k steps
    ahead left each tile's first 16 rows to the tile's own reads, which
    waited on L2 (perf: the FMAs after each column load took 12% of the
    samples); MobileNetV2's 96 -> 24 channel 1x1 conv at 56x56 (tiles of
    16 pixels inside 3-panel cache tiles) went 147.5 -> 133.5 us, its 144
    -> 24 one 211 -> 208, 144 -> 32 at 28x28 65.0 -> 64.5; 192 -> 32
    (192 steps) ran 85.2 -> 86.4, hence the 160-step bound. Whole models,
    paired rounds: MobileNetV2 0.984 (an identical copy 0.994), ResNet-18
    0.988 (1.002), ResNet-50 0.995 (0.999).

    Weights larger than `streamed-weight-bytes` (the CPU pipeline: the
    L2), read from memory each run, are prefetched `streamed-distance-bytes`
    ahead instead (the pipeline: 16 KB). Winograd's GEMMs over 16 tiles
    read 17 MB of transformed filter per 512-channel conv and waited on it
    4 KB ahead. Zen 5, one thread, paired rounds, every weight 16 KB ahead:
    ResNet-18 10.16-10.23 -> 9.60-9.71 ms (8 KB 9.68, 32 KB 9.68),
    ResNet-50 0.986 of its time (0.993 at two threads), MobileNetV2 even;
    but the MLP, whose 0.8 MB of weights stay in the 1 MB L2, 1.03x slower
    (three copies each), hence the bound.

    And (`next-panel`) a weight panel read a cache line or more a k step
    (a transposed tile's 32 filters), larger than `distance-bytes`, that
    register tiles re-read one after another (the loop around the k loop
    steps over rows of pixels, or the parallel loop's innermost dim does):
    on the last row, the panel after it gets a prefetch at the same k step,
    a whole re-read ahead of its first read (on the other rows the same
    prefetch goes to the line the step reads: an index select before the
    loop). The prefetch `distance-bytes` ahead, 32 k steps there, left the
    next panel's first read waiting on memory. Measured (session 50,
    paired rounds, order alternated): on Zen 5, MobileNetV2 (its 7x7 1x1
    convs, 7 tiles of 7 pixels a panel) 0.983 of its time at one thread
    and 0.984 at two; ResNet-50 1.015 (an identical build: 1.008); AVX2
    builds (6 x 16 tiles, 64 bytes a step) MobileNetV2 0.987, ResNet-18
    0.989. From every row, Zen 5 gained more (0.967-0.972 at one thread)
    but the device's Xeon at 16 threads lost 1.4-1.8% (the last row: 0.4%,
    noise there), prefetching panels other threads' shares read. Extended
    to row panels (12 filters, 48 bytes a step), ResNet-50 ran 0.7% slower.
  }];
  let options = [
    Option<"distanceBytes", "distance-bytes", "int64_t", /*default=*/"4096",
           "how far ahead of a weight read the prefetch reaches (0: none)">,
    Option<"streamedDistanceBytes", "streamed-distance-bytes", "int64_t", /*default=*/"0",
           "how far ahead the prefetch reaches for a weight larger than streamed-weight-bytes (0: distance-bytes)">,
    Option<"streamedWeightBytes", "streamed-weight-bytes", "int64_t", /*default=*/"0",
           "weights larger than this many bytes (a cache they do not fit) take streamed-distance-bytes (0: none do)">,
    Option<"columnSteps", "column-steps", "int64_t", /*default=*/"16",
           "how many k steps ahead a strided column read is prefetched (0: none)">,
    Option<"columnTilesAhead", "column-tiles-ahead", "int64_t", /*default=*/"2",
           "how many column tiles ahead a short k loop's strided column read is prefetched (0: k steps ahead as the others)">,
    Option<"nextTileMaxSteps", "next-tile-max-steps", "int64_t", /*default=*/"160",
           "k loops of at most this many steps, inside a loop over column tiles, prefetch a strided column read's next tile instead of k steps ahead (0: never)">,
    Option<"epilogueTiles", "epilogue-tiles", "bool", /*default=*/"true",
           "prefetch the epilogue's reads (a residual tile) before the k loop">,
    Option<"nextPanel", "next-panel", "bool", /*default=*/"true",
           "on the last row of tiles that re-read a weight panel larger than distance-bytes, prefetch the next panel">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def LowerVectors : Pass<"dlc-lower-vectors", "mlir::func::FuncOp"> {
  let summary = "Lower vector contractions, masks and n-D transfers to 1-D vector ops";
  let description = [{
    vector.contract becomes outer products (one FMA per accumulator row;
    the broadcast operand's elements read as scalar loads, which x86 folds
    into vbroadcastss),
    multi-reductions reduce in parallel lanes, transfers are split into full
    and partial tiles and unrolled to 1-D, so convert-vector-to-llvm sees only
    1-D vector ops the x86 backend maps onto ymm/zmm registers. Gathers
    whose indices advance by 1, 2 or 4 per lane (an im2col's rows, a
    Winograd F(4x4) input row split into phases) become contiguous loads
    (one shuffle of the first two, one more per further load); loads of a
    lane count that is not a multiple of 4 (7-wide rows) become masked
    loads of the next power of two, and with `masked-stores` (AVX-512's
    k-masked vmovups) stores of a lane count that is not a power of two
    (14-wide rows, which LLVM split into three) one masked store. Reads along a stride-2 dim (a stride-2 depthwise conv's or pool's
    taps) are two loads and a shuffle of the even elements; where 8-lane
    elementwise work reads only such taps and lane-uniform values (weights,
    BatchNorm, splats), the taps come in a paired lane order (0, 1, 4, 5,
    2, 3, 6, 7: one in-lane vshufps each on AVX2, not a vshufps and a
    vpermpd) and one shuffle restores the order before the store:
    MobileNetV2's stride-2 depthwise convs 0.295 -> 0.253 ms (96 channels,
    112x112) and 0.118 -> 0.093 (144, 56x56), fastest of 300 calls at one
    thread; outputs bit-identical.
    With `vector-width` (8 or 16), a transpose swapping two non-unit dims,
    each over half that width and at most it, or a multiple of it (a
    transposed GEMM tile's 14 pixels x 32 filters, turned into the NCHW
    output's rows in its epilogue), goes as width x width blocks of
    two-vector shuffles: unpacks within 128-bit lanes, then 128-bit lane
    shuffles (passes/LaneBlockTranspose.cpp). Upstream's lowering made the
    14 x 32 tile one 448-element shuffle, about 1100 instructions after
    LLVM, half of them spills. Zen 5, one thread, ResNet-50's 256 -> 1024
    1x1 conv with its residual over 14x14 alone: 0.571 -> 0.563 ms at
    batch 1, 7.13 -> 6.85 at batch 8; outputs bit-identical. Blocks of 7
    rows padded to 16 ran MobileNetV2 3% slower and stay one shuffle.
  }];
  let options = [
    Option<"maskedStores", "masked-stores", "bool", /*default=*/"false",
           "Stores of a lane count that is not a power of two (14-wide rows) as one "
           "masked store of the next power of two (AVX-512's k-masked vmovups)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "f32 lanes (8 or 16): transposes of two non-unit dims, each at most this "
           "long or a multiple of it, as blocks of this many rows (0: one flat shuffle)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect", "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def MaterializeResults : Pass<"dlc-materialize-results", "mlir::func::FuncOp"> {
  let summary = "Give every function result a buffer of its own";
  let description = [{
    Runs just before bufferization. A result that is a function argument, a
    constant, or the same value as an earlier result gets a linalg.copy into
    a fresh tensor, so that each result bufferizes to one allocation that the
    caller's output memory then replaces. A result that is a reshape of a
    destination-style op's result, whose init is (a fill of) a tensor.empty,
    gets that op writing into an empty of the result's shape through the
    inverse reshape instead of a copy after it. Tensor arguments are marked
    `bufferization.writable = false`: the caller's inputs are copied before
    any op would write into them.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::bufferization::BufferizationDialect"];
}

def Rematerialize : Pass<"dlc-rematerialize", "mlir::func::FuncOp"> {
  let summary = "Recompute cheap tensors next to their late uses instead of keeping them";
  let description = [{
    The recompute half of `--mem-budget` (activation checkpointing, as in
    Mimose or Chen et al.'s sublinear memory): a tensor produced early and
    read again much later (a forward activation the backward pass needs)
    occupies arena bytes across everything in between. For a use at least
    `min-distance` top-level ops after the previous one, the producer is
    cloned right before it, so the original dies after its early uses.

    Only one op is recomputed per use, and only when that costs no memory
    elsewhere: the producer is a `tensor.pad` or a linalg op on tensors of
    at most `max-flops-per-element` arithmetic ops per result element (pads,
    elementwise ops, pooling windows, im2col copies; never a GEMM), and
    every value it reads (operands and values its body captures) is a
    function argument, a constant, or still live at the new use anyway.
    Clones carry `dlc.recomputed` so that CSE does not merge them back. The
    function records how many ops were cloned, their FLOPs and the bytes
    they write (`dlc.recomputed_ops`, `dlc.recomputed_flops`,
    `dlc.recomputed_bytes`) for `dlc inspect`.
  }];
  let options = [
    Option<"minDistance", "min-distance", "int64_t", /*default=*/"16",
           "top-level ops between two uses before the later one recomputes">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4096",
           "smallest tensor worth recomputing">,
    Option<"maxFlopsPerElement", "max-flops-per-element", "int64_t", /*default=*/"64",
           "costliest producer recomputed, in arithmetic ops per result element">,
  ];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def PlanWeights : Pass<"dlc-plan-weights", "mlir::ModuleOp"> {
  let summary = "Read every constant of the entry from one weights buffer argument";
  let description = [{
    For the GPU, after bufferization: each `memref.get_global` of a constant
    becomes a `memref.view` at a fixed 64-byte aligned offset of a new last
    argument of the entry (`dlc.role = "weights"`), which the runtime fills
    once at create. Globals keep their data and get `dlc.weights_offset`;
    the entry records `dlc.weights_bytes`.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"", "entry function">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect", "mlir::arith::ArithDialect"];
}

def SplitPaddedTaps : Pass<"dlc-split-padded-taps", "mlir::func::FuncOp"> {
  let summary = "Read a strided window op's taps from its unpadded input, region by region";
  let description = [{
    For the CPU back end, after elementwise fusion. An all-parallel 4-D
    `linalg.generic` (dlc-depthwise-conv-to-taps' sum or a pool's taps,
    with whatever was fused into it) whose taps are slices, at strides of
    at least `min-stride`, of one constant `tensor.pad` of the spatial dims
    becomes one such generic per region of its output: the interior, where
    every tap lies inside the input and is a slice of the pad's source, and
    the one-element-wide first and last rows and columns and corners, where
    a tap that lies outside reads the pad's value (broadcast per channel).
    The regions are inserted into one result and the padded copy goes.
    MobileNetV2 at one thread: its first stride-2 depthwise conv (96
    channels, 112x112) with its pad 1.26 ms, split 0.56 ms; the whole model
    about 6% faster. At stride 1 splitting measured slower (its 112x112
    conv 0.30 ms against 0.25 ms with the copy: the frame's columns are
    scalar and the interior rows two short of whole vectors), hence the
    default. Frames wider than one element (pads over the stride) stay
    padded.
  }];
  let options = [
    Option<"minStride", "min-stride", "int64_t", /*default=*/"2",
           "smallest tap stride (both spatial dims) split into regions">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def SlideTapsInRegisters : Pass<"dlc-slide-taps-in-registers", "mlir::func::FuncOp"> {
  let summary = "Window taps read from the unpadded input as row vectors";
  let description = [{
    For the CPU back end, after elementwise fusion (and dlc-split-padded-taps).
    An all-parallel 4-D `linalg.generic` (dlc-depthwise-conv-to-taps' sum or
    a pool's taps, with its bias, BatchNorm and activation fused) whose taps
    are slices of one constant `tensor.pad` of the spatial dims, at strides
    of 1 or 2 across a row (any down the rows), becomes an `scf.forall` over (image, channel) applying the generic's
    body to row vectors of `vector-width` lanes; other inputs may be per
    channel, scalar or the output's own row. The padded copy goes.

    Planes whose rows fit one vector, at most `max-rows` of them: each row
    of the pad's source is read once (the pad's value past its end), each
    tap column's shift (every second column at stride 2) is one
    `vector.shuffle` (columns outside the row take the pad's value), and every output row (unrolled) applies the body to
    its window's shifted rows, rows outside the input being the pad's value.
    Where a row and a lane of the pad's value fit half a vector (7x7 maps at
    stride 1, an even channel count), two channels share each vector, one
    a half, and the forall runs over channel pairs (MobileNetV2's three
    960-channel 7x7 convs 0.038 -> 0.022 ms at one thread, in the model).

    Wider rows go in pieces of `vector-width` lanes, read aligned: at
    stride 1 a tap at a column shift within a vector is one shuffle of the
    two pieces around it (lanes past the row's end the pad's value); at
    stride 2 a piece's columns are read once as two vectors, whose even or
    odd lanes one shuffle takes (a shift of -1 is the odd lanes one lane
    right, lane 0 the previous piece's last column or the pad's value).
    Rows whose window leaves the input are unrolled, the others one
    scf.for: at stride 1 four output rows an iteration (the rows past the
    last whole block unrolled), each input row's pieces read once for all
    four; at a larger row stride one, the tap vectors of its last input
    row carried (iter_args) to the next iteration where that row is the
    next one's first (a window taller than the stride). It runs
    before dlc-split-padded-taps, which takes what it leaves.

    Why: MobileNetV2's stride-1 depthwise convs copied each channel into a
    padded plane (on 14x14 maps three stores and two scalar border stores a
    row) and then read nine rows for each output row; on 14x14 and 7x7 maps
    the two loops took 6% of the model at one thread (Zen 5). Alone, with
    dlc-lower-vectors' masked stores: 576 channels of 14x14 0.032 -> 0.016
    ms, 144 of 56x56 0.118 -> 0.070, 32 of 112x112 0.103 -> 0.060, 192 of
    28x28 0.041 -> 0.029. MobileNetV2: 0.94 of before at one thread (narrow
    planes; wide rows added 0.995), 0.91 at two; batch 8 0.97 and 0.91. AVX2 (8
    lanes, narrow planes only: 7-wide stores split in three) measured even,
    and the CPU pipeline runs this pass for 16-lane targets only. Stride 2
    (in place of dlc-split-padded-taps' regions), alone: 96 channels of
    112x112 0.111 -> 0.067 ms, 144 of 56x56 0.048 -> 0.028, 576 of 14x14
    0.016 -> 0.011, 192 of 28x28 0.0136 -> 0.0132; MobileNetV2 0.945 of
    before at one thread, 0.96 at two, batch 8 0.94 / 0.95; ResNet-18
    (its max pool) 0.99 / 1.00, ResNet-50 0.99. Wide rows at stride 1 read
    a tap at its column shift, unaligned, for each output row until session
    46; from aligned pieces, four rows a step, in the model at one thread
    (perf): 144 of 56x56 0.079 -> 0.052 ms, 32 of 112x112 0.066 -> 0.051,
    192 of 28x28 (two) 0.073 -> 0.058. The stride-2 rows carried (session
    54, Zen 4, in the model at one thread, the pool's per-loop clock): 96
    of 112x112 0.120 -> 0.106-0.111 ms, 144 of 56x56 0.045 -> 0.039, 192
    of 28x28 0.024 -> 0.018 (24 us a call); MobileNetV2 0.983 and 0.997
    of before in two paired runs at one thread, 0.994 at two; ResNet-18
    (its max pool) 0.984.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "lanes of a row vector: planes whose rows fit it">,
    Option<"maxRows", "max-rows", "int64_t", /*default=*/"16",
           "most output rows a plane may have (its rows are unrolled)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::tensor::TensorDialect", "mlir::arith::ArithDialect"];
}

def DepthwiseConvToTaps : Pass<"dlc-depthwise-conv-to-taps", "mlir::func::FuncOp"> {
  let summary = "Write NCHW depthwise convolutions as one elementwise sum over their window's taps";
  let description = [{
    For the CPU back end, before elementwise fusion. A static
    `linalg.depthwise_conv_2d_nchw_chw` with at most `max-taps` window
    positions becomes one all-parallel `linalg.generic` over the output:
    out = init + sum over (kh, kw) of x[kh, kw] * w[:, kh, kw], where each
    x[kh, kw] is a strided `tensor.extract_slice` of the (padded) input and
    each w[:, kh, kw] a per-channel slice of the weight. Every indexing map is
    then a projected permutation: the generic vectorizes along the output's
    rows like any elementwise op (upstream vectorizes no NCHW depthwise
    conv), keeps the taps' sum in registers, and elementwise fusion pulls the
    bias and the following BatchNorm/activation into it. A zero-filled init
    becomes a constant in the body; any other init is read as an input.

    The sum is one chain of `math.fma` in (kh, kw) order, except where
    `vector-width` is set and dlc-slide-taps-in-registers' loop over output
    rows wider than a vector would keep fewer than 12 sums in flight (rows
    per step, 4 at stride 1 and 1 at stride 2, times vectors per row:
    MobileNetV2's 28x28 maps and its stride-2 convs to 56x56 and 28x28):
    then each window row's taps are a chain of their own (the first row's
    from the start, the others from a `arith.mulf`) and the rows' sums are
    added (`arith.addf`) at the end, for the FMAs' latency.
  }];
  let options = [
    Option<"maxTaps", "max-taps", "int64_t", /*default=*/"25",
           "largest kh * kw rewritten (each tap is one input of the generic)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "f32 lanes of dlc-slide-taps-in-registers' row vectors (0: one chain of FMAs always)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::math::MathDialect", "mlir::arith::ArithDialect"];
}

def PoolingToTaps : Pass<"dlc-pooling-to-taps", "mlir::func::FuncOp"> {
  let summary = "Write NCHW max and sum pooling as one elementwise op over their window's taps";
  let description = [{
    For the CPU back end, before elementwise fusion. A static f32
    `linalg.pooling_nchw_max` or `linalg.pooling_nchw_sum` with at most
    `max-taps` window positions becomes one all-parallel `linalg.generic`
    over the output combining (`arith.maximumf` or `arith.addf`, in the
    named op's (kh, kw) order) the window's taps, each a strided
    `tensor.extract_slice` of the input read through an identity map, as
    dlc-depthwise-conv-to-taps does for depthwise convs. The generic
    vectorizes along output rows (upstream vectorizes only NHWC pooling),
    and an average pool's division fuses into it. A constant init becomes a
    body constant; a -inf start of a max pool is left out (max(-inf, x) is x).
  }];
  let options = [
    Option<"maxTaps", "max-taps", "int64_t", /*default=*/"25",
           "largest kh * kw rewritten (each tap is one input of the generic)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def FoldGemmZeroInit : Pass<"dlc-fold-gemm-zero-init", "mlir::func::FuncOp"> {
  let summary = "Let library GEMMs overwrite their output instead of adding into zeros";
  let description = [{
    For the CUDA back end, after bufferization and before the memory plan.
    Where the last write to a library GEMM's output (passes/LibraryGemm.h)
    is a zero fill of exactly that memory, or a copy into it from memory a
    zero fill last wrote, the GEMM is marked `dlc.gemm_overwrite` (its
    kernel stores C = A B instead of C += A B) and the fill or copy removed
    unless something between reads it; zero buffers left unread go too.
  }];
}

def ImplicitGemm : Pass<"dlc-implicit-gemm", "mlir::func::FuncOp"> {
  let summary = "Fold a conv's im2col gather into the library GEMM that reads it";
  let description = [{
    For the CUDA back end, after dlc-fold-gemm-zero-init and before the
    memory plan. An im2col gather that dlc-conv-to-im2col marked
    `dlc.implicit_gemm_columns` (columns [N, KH, KW, C, OH, OW] of one
    input, into a buffer of their own), whose columns only a library GEMM
    (passes/LibraryGemm.h) reads as its B operand, with nothing between the
    two but views, becomes one `dlc.conv_gemm` of the input, the GEMM's
    filter and its output (keeping `dlc.gemm_overwrite` as `overwrite`):
    the CUDA conv kernels gather the columns as they stage their tiles, and
    the column buffer (ResNet-50 at batch 32: 1.8 GB written and read again
    over its convs) goes. Anything else is left as it is.
  }];
  let dependentDialects = ["dlc::DlcDialect"];
}

def FuseGemmEpilogue : Pass<"dlc-fuse-gemm-epilogue", "mlir::func::FuncOp"> {
  let summary = "Mark a conv GEMM's elementwise tail for the GEMM kernel's epilogue";
  let description = [{
    For the CUDA back end, after dlc-implicit-gemm and before
    dlc-plan-memory. Where a GEMM that overwrites its output (a library
    GEMM marked `dlc.gemm_overwrite`, or a `dlc.conv_gemm` with
    `overwrite`) is followed by an elementwise linalg.generic computing
    act(x * scale[m] + shift[m] + r * rscale[m] + rshift[m]) of its output
    x (every term optional; act none, relu or a clamp; m the GEMM's row),
    and nothing else reads x, the generic gets `dlc.gemm_epilogue`: which
    of its inputs is which part. The compiler then runs it inside the GEMM
    kernel's store; the IR keeps both ops and their meaning.
  }];
}

def MapToGpu : Pass<"dlc-map-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Turn the planned entry's loops into gpu.launch ops, one thread per iteration";
  let description = [{
    For the CUDA back end, after the memory plan. Linalg ops become loops;
    each top-level `scf.parallel` becomes a `gpu.launch` whose threads
    (linearized, `threads-per-block` to a block) each run one iteration;
    any other op that touches memory runs in a one-thread launch (marked
    `dlc.single_thread`). View-like ops and constants are sunk into the
    launches so that kernels capture only the entry's arguments.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", /*default=*/"256",
           "threads in a block">,
    Option<"libraryGemm", "library-gemm", "bool", /*default=*/"false",
           "leave float32 contractions to the tensor-core GEMM kernel (dlc.library_gemm)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def MergeKernelModules : Pass<"dlc-merge-kernel-modules", "mlir::ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    After gpu-kernel-outlining (one gpu.module per kernel): one module, so
    one PTX file and one cubin. Kernels are renamed after their old
    modules and every gpu.launch_func is updated.
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string", /*default=*/"\"dlc_kernels\"",
           "name of the merged gpu.module">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def SplitEmptyTensors : Pass<"dlc-split-empty-tensors", "mlir::func::FuncOp"> {
  let summary = "Give every use of a tensor.empty an empty tensor of its own, next to it";
  let description = [{
    Runs just before bufferization. CSE merges equal tensor.empty ops, and
    one-shot bufferization turns one tensor.empty into one allocation that
    all its users then write in place: two unrelated results (a forward
    conv's im2col columns and the weight gradient's recomputed ones) would
    share a buffer, which then lives from the first write to the last read
    and the memory planner cannot overlap it with anything in between. A
    slice taken from the empty and a slice inserted back at the same place
    keep one clone between them: what is computed into the slice is then
    written in place.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def PlanMemory : Pass<"dlc-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every buffer of the entry function in one arena";
  let description = [{
    After bufferization, each memref.alloc of the entry function gets a live
    interval (its first and last use in the entry block, following views) and
    an offset, packed greedily with 64-byte alignment so that buffers whose
    intervals do not overlap share bytes (the best of three placement
    orders: by size, by size x lifetime, by lifetime). The allocs become memref.view
    ops on a new trailing `memref<Nxi8>` argument. The function records
    `dlc.arena_bytes` and `dlc.arena_lower_bound` (peak live bytes).

    With `reuse-distance` N > 0, buffers keep off the bytes of buffers freed
    at most N steps (ops that read or write memory) before they are
    allocated, or failing that N - 1, ... 1 steps, wherever the arena found
    without the rule still holds them (where the plan then needs a larger
    arena, the plan without the rule stands). At two threads, a buffer that
    a loop split over pixels read a step or two ago is in both cores'
    caches; a loop split over channels that writes over it first takes
    each line away from the other core. Measured (session 59, Zen 4 VM, 2
    cores, `bench/core_to_core.c`): rewriting a line the other core has
    read costs 7 ns against 1 for one only this core holds (28 ns in the
    VM's slow cross-core state); a C loop reading 320 KB the other core had
    written took 1.3x its own lines' time. MobileNetV2's depthwise convs
    over 14x14 and 7x7 maps wrote over the bytes the 1x1 conv before had
    just read and ran no faster at two threads than at one (43-45 K TSC
    cycles a call either way, against 24 K for the first of each stage,
    whose bytes had rested); with 32 steps 24-31 K, the model 0.974-0.984
    of its time at two threads (see Pipelines.cpp).
  }];
  let options = [
    Option<"entry", "entry", "std::string", "\"main\"", "entry function name">,
    Option<"reuseDistance", "reuse-distance", "int64_t", /*default=*/"0",
           "steps a buffer's bytes rest before another buffer takes them, "
           "where the arena allows (0: none)">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def OutlineParallelLoops : Pass<"dlc-outline-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Move each outermost scf.parallel of the entry into its own function";
  let description = [{
    Runs on buffers, after planning. The entry gets a trailing `!llvm.ptr`
    argument: the runtime's thread pool. Each outermost scf.parallel with
    constant bounds becomes a private function
    `dlc_parallel_body_N(%lo: index, %hi: index, captured...)` that runs the
    linearized iterations [lo, hi), and a call to it over [0, trip count)
    marked `dlc.parallel`. Constants, and values computed from constants
    alone by side-effect-free ops (a gather's lane offsets hoisted out of
    the loop), are cloned into the body instead of being passed: the body's
    vector patterns still see them. A body whose captured buffers provably share no bytes
    (distinct entry arguments, globals, disjoint arena ranges) is marked
    `dlc.disjoint_buffers`. The entry is marked `llvm.bareptr` (one pointer per
    tensor); bodies take full memref descriptors, since captured views may
    be strided. dlc-dispatch-parallel-calls later turns the calls into
    dlc_parallel_for calls on the pool. A loop whose estimated work (vector
    instructions over all its iterations, linalg ops counted per point) is
    under `min-parallel-work` stays a sequential loop in the entry: handing
    a few microseconds to another thread costs about what it saves (LeNet
    ran slower on 2 threads than on 1). Before that comparison the work is
    charged `shared-byte-cost` per byte of the arena and of the entry's
    tensors the loop touches, in an entry whose whole arena fits
    `private-cache-bytes` and where those bytes fit it too (more go
    through L3 whoever touches them: an activation over a 3.2 MB input
    stayed on one thread, charged for them): split among threads, the lines the other core
    wrote last move between the cores' private caches (constants are only
    read, and each core keeps its copy), where serial loops keep every
    buffer on one core. LeNet's im2col copy of its first conv (78 KB
    written, 2.4 us on one thread) took 2.9 us a thread on two on a Zen 3
    VM, a third of a vector instruction (about 0.13 ns there) a byte; on a
    Zen 4 VM its second conv's GEMM (61K vector instructions, about 5 us,
    75 KB of columns and output) took LeNet from 13.5 to 19.4 us on two
    threads, one vector instruction a byte or more: the default. A
    larger arena goes through L3 whichever core runs a loop, and a serial
    loop between parallel ones pulls its data from the other cores as well:
    charged, MobileNetV2's copies made it 20-35% slower on 16 threads.
    A vector read of a constant global (a weight) counts twice in the
    estimate: weights come from L2 or memory each run, and a loop that
    streams them runs at the cache's bandwidth, which a second core's cache
    doubles. The MLP's second layer (a 256 x 128 matrix-vector product,
    1 us on one thread) had stayed serial at about 7.7K; counted so, it goes
    to the pool: 5.33 -> 5.11 us a call on two threads of a Zen 4 VM (one
    thread 9.1 either way). A lower threshold (6144) would have sent it too,
    and with it MobileNetV2's copy of its last 7x7 map into row tiles
    (6.1K to 7K, no weights: 2.3 us on one thread, 5.7 dispatched on two).
  }];
  let options = [
    Option<"entry", "entry", "std::string", "\"main\"", "entry function name">,
    Option<"minParallelWork", "min-parallel-work", "int64_t", /*default=*/"8192",
           "smallest estimated work (vector instructions) dispatched to the thread pool">,
    Option<"sharedByteCost", "shared-byte-cost", "double", /*default=*/"1.0",
           "work (vector instructions) charged per byte of arena or entry tensor a dispatched loop touches">,
    Option<"privateCacheBytes", "private-cache-bytes", "int64_t", /*default=*/"262144",
           "largest arena whose loops are charged for shared bytes (one core's private cache)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect", "mlir::func::FuncDialect"];
}

def AlternateSweeps : Pass<"dlc-alternate-sweeps", "mlir::ModuleOp"> {
  let summary = "Mark the parallel loops of a model whose data nearly fits the L2 to sweep it alternately";
  let description = [{
    Runs after dlc-outline-parallel-loops. Where what one run of the entry
    reads at the least, its constant globals (the weights) and its arena,
    takes more than half of `cache-bytes` and at most twice it, each body
    a `dlc.parallel` call of the entry runs is marked `dlc.alternate_sweeps`;
    dlc-dispatch-parallel-calls then dispatches it with
    dlc_parallel_for_alternating, which runs each thread's iterations back
    to front on every other run. Swept the same way each run, a working set
    a little over the cache misses on every line: the line the sweep needs
    next is the one used longest ago, which the cache evicted first.
    Swept alternately, the lines read last, still cached, are read first.
    The MLP (0.93 MB of weights, 1 MB of L2 on Zen 5, one thread) ran
    4.8-5.0 us a call against 5.65 in the same tiles swept one way (6.1
    in the two tiles it had before dlc-tile-and-vectorize cut them to
    four). Under half the cache the data stays anyway; over twice it, a
    reversed sweep finds little of it left (and a larger model's other
    layers evict it between one run of a loop and the next). The
    iterations of a parallel loop are independent, so the order never
    changes the results.
  }];
  let options = [
    Option<"entry", "entry", "std::string", "\"main\"", "entry function name">,
    Option<"cacheBytes", "cache-bytes", "int64_t", /*default=*/"1048576",
           "one core's private (L2) cache">,
  ];
}

def DispatchParallelCalls : Pass<"dlc-dispatch-parallel-calls", "mlir::ModuleOp"> {
  let summary = "Turn calls of outlined parallel bodies into thread-pool dispatches";
  let description = [{
    On the LLVM dialect. Each `llvm.call @dlc_parallel_body_N(lo, hi, args...)`
    becomes: the args stored into a stack struct, and
    `dlc_parallel_for(pool, @dlc_parallel_tramp_N, &struct, hi)`, where the
    trampoline `(ctx, lo, hi)` reloads the args and calls the body. The pool
    is the entry's last argument. Bodies marked `dlc.disjoint_buffers` get
    `noalias` pointer arguments. A body whose location names an ONNX node
    (the importer's NameLoc) gives its trampoline that name as a suffix,
    `dlc_parallel_tramp_N_conv_44`: LLVM inlines the body there, so `perf`
    reports each parallel loop under its layer's name. A body marked
    `dlc.alternate_sweeps` (dlc-alternate-sweeps) is dispatched with
    `dlc_parallel_for_alternating` instead, same arguments.
  }];
  let options = [
    Option<"entry", "entry", "std::string", "\"main\"", "entry function name">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def AppendLoss : Pass<"dlc-append-loss", "mlir::func::FuncOp"> {
  let summary = "Replace main's outputs by a scalar training loss over a new labels argument";
  let description = [{
    softmax-cross-entropy: logits [N, C] (a final softmax is skipped) and int64
    class labels [N], mean over the batch, as PyTorch's CrossEntropyLoss.
    mse: labels shaped as the output, mean of squared differences.
  }];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"softmax-cross-entropy\"",
           "softmax-cross-entropy or mse">,
  ];
}

def TrainingMode : Pass<"dlc-training-mode", "mlir::func::FuncOp"> {
  let summary = "Give BatchNormalization and Dropout their training behaviour in the train step";
  let description = [{
    Runs on the train step after dlc-append-loss (main returns the loss).
    batch_norm normalizes with the batch's mean and (biased) variance over
    all dims but the channel; where its mean/variance are arguments with
    dlc.role = "buffer" (running statistics), their new values
    running * momentum + batch * (1 - momentum) become results (ONNX's
    training-mode BatchNormalization). dropout becomes x * dropout_mask, the
    mask drawn from a new 0-D int64 argument `rng.step` (dlc.role = "state")
    that the step increments. Afterwards main returns the loss, then the new
    value of every "buffer" and "state" argument in argument order.
  }];
}

def Autodiff : Pass<"dlc-autodiff", "mlir::func::FuncOp"> {
  let summary = "Reverse-mode gradients of main's scalar loss for its parameter arguments";
  let description = [{
    main returns the loss first; arguments with dlc.role = "parameter" get
    their gradients appended to the results, in argument order. Only ops
    between a parameter and the loss are differentiated.
  }];
}

def ApplyOptimizer : Pass<"dlc-apply-optimizer", "mlir::func::FuncOp"> {
  let summary = "Turn (loss, gradients) into (loss, updated parameters, updated optimizer state)";
  let description = [{
    Adds a 0-D learning_rate argument and the optimizer's state arguments
    (dlc.role = "state"): SGD's momentum buffers, Adam's step count and
    moments. The update arithmetic is torch.optim's.
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"", "sgd or adam">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0", "SGD momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0", "L2 penalty added to gradients">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam beta2">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8", "Adam epsilon">,
  ];
}

def FoldBatchNorm : Pass<"dlc-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Fold a conv's BatchNorm into its constant weights where that runs faster";
  let description = [{
    On dlc ops, before lowering: `dlc.batch_norm` of a `dlc.conv` (its only
    use), with constant f32 weights, bias and statistics, becomes one conv
    with weights w * s per filter and bias b * s + t (s = scale / sqrt(var +
    eps), t = shift - mean * s), where
    - the BatchNorm feeds only `dlc.add`s (a residual Add), or
    - the conv is depthwise (group = filters, one input channel a filter),
      1x1, or an image stem (group 1 over at most 4 input channels).
    Training builds' parameters are not constants and stay.

    Why: a conv's kernel applies a BatchNorm as a per-filter scale and
    shift in its epilogue, a bias as one value it starts from or adds.
    - At a residual Add the other branch's BatchNorm joins the epilogue:
      ResNet-50's first bottleneck carried four per-filter vectors in its
      56x56 expand conv, which ran 0.59 ms against 0.44 for the later
      blocks' (Zen 5, one thread, perf); folded, 0.44 too.
    - Depthwise taps start from the bias instead of ending in one more
      multiply-add (MobileNetV2's 144-channel 56x56 conv 0.088 -> 0.078
      ms, its 384-channel 14x14 ones 0.047 -> 0.039), and a 1x1 conv's GEMM
      keeps one per-filter value at hand instead of two. MobileNetV2 with
      all three folded ran 0.976-0.994 of the residual-only fold in pairs
      at one and two threads (its AVX2 build 0.986).
    - An image stem's outer-products tile (dlc-conv-to-outer-products)
      starts from the bias instead of zeroing and, after 27 multiply-adds
      a pixel (3x3 over RGB), multiplying by the scale: MobileNetV2's stem
      264-266 -> 232-236 us alone at one thread (Zen 4), the model 0.98 of
      before.
    - The other convs keep their BatchNorm: folding every conv -> BatchNorm
      pair (onnxruntime's ConvBNFusion) ran ResNet-50 1-4% slower, in its
      3x3 stride-2 im2col convs (512 x 512 over 7x7: 1.10 -> 1.19 ms).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ConstantMinMaxToSelect : Pass<"dlc-constant-min-max-to-select", "mlir::func::FuncOp"> {
  let summary = "Rewrite a maximumf/minimumf by a constant bound as compare+select";
  let description = [{
    For the CPU back end, after the vectors are 1-D. `arith.maximumf %x, %c`
    with a constant (scalar or splat) `%c` that is not NaN becomes
    `arith.select (arith.cmpf ogt, %c, %x), %c, %x`, minimumf the same with
    `olt`: the same function, NaN in `%x` included, and the form LLVM maps
    to one vmaxps/vminps at any vector width. As maximumf, LLVM lowered a
    bound on a 7-lane vector (a 7x7 map's row, a GEMM tile over 49 pixels:
    its widened constant has an undefined lane, maybe NaN) to vmaxps,
    vcmpunordps and vblendvps: MobileNetV2 had 198 such compares. A zero
    bound is rewritten only in ops with the `nsz` flag (Relu, Clip), as
    the select can return -0 where maximumf returns +0.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ApproximateMath : Pass<"dlc-approximate-math", "mlir::func::FuncOp"> {
  let summary = "f32 exp, expm1, log, log1p, log2, tanh and erf as polynomials";
  let description = [{
    For the CPU back end: MLIR's polynomial approximations (arith and
    math.fma, any vector width) replace f32 `math.exp`, `expm1`, `log`,
    `log1p`, `log2`, `tanh` and `erf`, which LLVM would otherwise lower to
    one libm call per vector lane. Other math ops and other element types
    are left as they are (trigonometric ops, f64: libm).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def ExpandBF16 : Pass<"dlc-expand-bf16", "mlir::func::FuncOp"> {
  let summary = "Turn f32<->bf16 conversions into integer arithmetic";
  let description = [{
    LLVM lowers `fptrunc float to bfloat` to a call of `__truncsfbf2`, which
    Debian 12's libgcc (GCC 12) does not define, so an artifact with a bf16
    cast would not link. MLIR's bf16 expansion patterns (the `include-bf16`
    part of `arith-expand`) rewrite arith.truncf/extf between f32 and bf16
    as round-to-nearest-even bit arithmetic. The rest of `arith-expand`
    (maximumf/minimumf into compare+select, ...) is deliberately not run:
    it would change the code of every Relu and MaxPool.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ParallelScratchOnStack : Pass<"dlc-parallel-scratch-on-stack", "mlir::func::FuncOp"> {
  let summary = "A parallel iteration's own static buffers on the running thread's stack";
  let description = [{
    On buffers, before dlc-plan-memory: a static memref.alloc inside an
    scf.parallel whose uses (and views) all stay in the outermost parallel
    loop's iteration (a GEMM cache tile's own column block, built by
    dlc-tile-and-vectorize's fuse-columns) is needed by each thread at once,
    which the arena's fixed offsets cannot give. It becomes a memref.alloca
    at the top of a memref.alloca_scope wrapping the iteration (the stack
    comes back at each iteration's end, also where the loop stays serial).
    Buffers over max-bytes stay allocations (dlc-verify-no-heap-alloc then
    reports them): the runtime's threads have the platform's default stack.
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"262144",
           "largest buffer put on the stack">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def HoistStaticAllocas : Pass<"dlc-hoist-static-allocas", "mlir::func::FuncOp"> {
  let summary = "Static stack buffers of loop iterations as one buffer at function entry";
  let description = [{
    Before convert-scf-to-cf: every memref.alloca of a static shape outside
    the function's entry block (in an scf.for or scf.parallel body, an
    scf.if, a memref.alloca_scope) moves to the top of the entry block.
    scf-to-cf keeps no allocation scope for loop bodies, and LLVM grows the
    stack by an alloca in a loop block at every iteration: a parallel
    loop's 229 KB scratch block over 56 iterations overflowed an 8 MB
    stack. A function's iterations run one after another, so one buffer
    serves them all.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def VerifyNoHeapAlloc : Pass<"dlc-verify-no-heap-alloc", "mlir::ModuleOp"> {
  let summary = "Fail if any heap allocation remains in generated code";
  let description = [{
    Runs after planning: any memref.alloc / memref.realloc, or any call to
    malloc, calloc, realloc or aligned_alloc, is an error naming its location.
  }];
}

#endif // DLC_PASSES
