//! Inference runtimes: ONNX Runtime, CTranslate2 (and faster-whisper on it), openai-whisper. Each
//! loads a model onto CUDA when its arguments (or its defaults) ask for it.

use super::{inits, Behaviour, Init, Param, Row};

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

/// A CTranslate2 model: on the CPU unless `device` says `"cuda"`, or `"auto"` on a host with a GPU.
const CTRANSLATE2_MODEL: Behaviour = Behaviour::LoadsModel {
    device: Some(Param::pos(1, "device")),
    device_map: None,
    cuda_when_available: false,
    auto: Some("auto"),
};

pub const ROWS: &[Row] = &[
    row(
        "onnxruntime.InferenceSession",
        Behaviour::LoadsOnProviders {
            providers: Param::pos(2, "providers"),
            cuda: &["CUDAExecutionProvider", "TensorrtExecutionProvider"],
        },
        "the CUDA and TensorRT providers create a context and load the model on the GPU; the CPU provider touches no CUDA",
    ),
    row(
        "ctranslate2.Translator",
        CTRANSLATE2_MODEL,
        "loads onto CUDA for `device=\"cuda\"`, or `\"auto\"` when a GPU is present; the default is the CPU",
    ),
    row(
        "ctranslate2.Generator",
        CTRANSLATE2_MODEL,
        "loads onto CUDA for `device=\"cuda\"`, or `\"auto\"` when a GPU is present; the default is the CPU",
    ),
    row(
        "ctranslate2.models.Whisper",
        CTRANSLATE2_MODEL,
        "loads onto CUDA for `device=\"cuda\"`, or `\"auto\"` when a GPU is present; the default is the CPU",
    ),
    row(
        "ctranslate2.get_cuda_device_count",
        inits(Init::Driver),
        "counts GPUs through the CUDA runtime, which runs `cuInit`",
    ),
    row(
        "faster_whisper.WhisperModel",
        Behaviour::LoadsModel {
            device: Some(Param::pos(1, "device")),
            device_map: None,
            cuda_when_available: true,
            auto: Some("auto"),
        },
        "its default `device=\"auto\"` loads onto CUDA when a GPU is present; `device=\"cpu\"` keeps it on the CPU (faster-whisper 983)",
    ),
    row(
        "whisper.load_model",
        Behaviour::LoadsModel {
            device: Some(Param::pos(1, "device")),
            device_map: None,
            cuda_when_available: true,
            auto: None,
        },
        "loads onto CUDA when `torch.cuda.is_available()` unless `device` says otherwise",
    ),
];
