"""A FastDeploy-style model runner, written for dslint's tests."""

import paddle


class GPUModelRunner:
    def __init__(self, model):
        self.model = model
        self.share_inputs = {}

    def _prepare_inputs(self):
        return self.share_inputs

    def execute_model(self, model_forward_batch=None):
        inputs = self._prepare_inputs()
        if False:
            paddle.base.core.nvprof_start()
        # paddle.base.core.nvprof_stop()
        # The model-execution dispatch.
        model_output = self.model(
            ids_remove_padding=inputs.get("ids_remove_padding"),
            forward_meta=inputs.get("forward_meta"),
        )
        return model_output
