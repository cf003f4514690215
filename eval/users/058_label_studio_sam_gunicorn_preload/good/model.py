import os

import numpy as np
import torch
from segment_anything import SamPredictor, sam_model_registry

DEVICE = os.environ.get("DEVICE", "cuda")
sam = sam_model_registry["vit_h"](checkpoint=os.environ.get("SAM_CHECKPOINT", "sam_vit_h.pth"))
sam.to(device=DEVICE)
predictor = SamPredictor(sam)


class SamMLBackend:
    def predict(self, image, points):
        predictor.set_image(image)
        masks, scores, _ = predictor.predict(point_coords=np.array(points), point_labels=np.ones(len(points)))
        return masks[int(np.argmax(scores))]
