export { BLOCK_IMAGES_PLUGIN, type BlockImagesOptions, blockImages, IMAGE_PLACEHOLDER } from "./block-images.js";
