from nnsight.modeling.vllm import VLLM

model = VLLM("gpt2", gpu_memory_utilization=0.4)
with model.trace("The Eiffel Tower is in", max_tokens=1):
    hidden = model.transformer.h[0].output.save()
print(f"first block output: {hidden.shape}")
