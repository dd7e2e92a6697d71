/* Private to src/ops: the kernels of the "npu" group of ops (rows in npu/npu.def): torch_npu's
 * fused operators, computed as msprobe's CPU bench functions define them
 * (docs/msprobe-contract.md#replay). The schema name of each row is the dumped API name
 * ("npu_rms_norm"). */
#ifndef PC_OPS_NPU_IMPL_H
#define PC_OPS_NPU_IMPL_H

#include "ops/ops_impl.h"

/* ---- npu_fused.c: rms_norm, rotary_mul, swiglu ---- */
PC_KERNEL_FORWARD(npu_rms_norm);
PC_KERNELS(npu_rotary_mul);
PC_KERNELS(npu_swiglu);

/* ---- npu_attention.c: npu_fusion_attention (outputs 0-2; backward through output 0) ---- */
PC_KERNELS(npu_fusion_attention);

/* ---- npu_misc.c ---- */
PC_KERNELS(npu_scaled_masked_softmax);
PC_KERNELS(npu_fast_gelu);
PC_KERNELS(npu_confusion_transpose);
PC_KERNELS(npu_layer_norm_eval);
PC_KERNEL_FORWARD(npu_apply_adam);
PC_KERNEL_FORWARD(npu_apply_adam_w);
PC_KERNEL_FORWARD(npu_group_norm_silu);

#endif
