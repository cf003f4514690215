# silent: spawn is forced in the script body and a ModelScope pipeline is built and called there too, but building or calling an ordinary pipeline starts no process (ModelScope opens a pool only in its multi-GPU `DistributedPipeline`), so no child imports this script again
import multiprocessing

import torch
from modelscope.pipelines import pipeline
from modelscope.utils.constant import Tasks

multiprocessing.set_start_method("spawn", force=True)

caption = pipeline(Tasks.image_captioning, model="damo/ofa_image-caption_coco_large_en")
with torch.inference_mode():
    print(caption("street.jpg"))
