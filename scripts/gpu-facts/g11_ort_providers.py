import onnxruntime as ort
print("ort", ort.__version__, ort.get_available_providers())
