import type { SeededRandom } from './random.js';

/**
 * Realistic-looking Atelier rows, already rendered as CSV fields (text quoted the way the
 * export quotes it; numbers and the literal `null` bare).
 */

const ADJECTIVES = ['Camo', 'Bright', 'Heir', 'Pumped', 'Morning', 'Slacker', 'Alberto', 'YEasy', 'Manuel', 'Kicks'];
const NOUNS = [
  'Onesie',
  'Future Sunglasses',
  'Force Sunglasses',
  'Up Tank',
  'Joggers',
  'Slacks',
  'Romper',
  'Sweatpants',
  'Jacket',
  'Shoes',
];
const CATEGORIES = ['Jackets', 'Accessories', 'Pants', 'Kicks', 'Dress Shoes', 'Shirts', 'Shorts', 'Hats'];
const SLOGANS = ['Blend in to your crowd', "You've got to wear shades", 'Stay cool, stay "fresh"', 'Comfort, style, and speed'];
const SENTENCES = [
  'The So Fatigues will wake you up and fit you in.',
  'This high energy camo will have you blending in to even the wildest surroundings.',
  'Where you\'re going you might not need roads, but you definitely need "shades".',
  'Made from the finest cotton, wool, and recycled nylon.',
  "I'm just kidding, these are simply the best.",
];
const FEATURES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Fabric', ['Canvas', '100% Cotton', 'Double Stitch', 'Black Leather']],
  ['Buttons', ['Brass', 'Wood', 'Plastic']],
  ['Lenses', ['Ultrasheen', 'Polarized', '"Blue-light" filter']],
  ['Sole', ['Rubber', 'FullControlSkin']],
  ['Green Leaf Certified', ['null']],
];
const COLOURS = ['Black', 'Forest Green', 'Desert Brown', 'Ocean Blue', 'Sky Blue', 'Dark Grey', 'White', 'Red'];
const CLOTHING_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
const SHOE_SIZES = ['7', '7.5', '8', '8.5', '9', '9.5', '10', '10.5', '11', '11.5', '12'];
const PHOTO_IDS = ['1501088430049-71c79fa3283e', '1534011546717-407bced4d25c', '1549831243-a69a0b3d39e0', '1530092376999-2431865aa8df'];

export function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function price(random: SeededRandom): string {
  return String(random.int(5, 999));
}

export function productFields(random: SeededRandom, id: number): string[] {
  const sentences = Array.from({ length: random.int(1, 3) }, () => random.pick(SENTENCES));
  // About one description in fifty runs over two lines, as in the real export.
  const description = sentences.join(random.chance(0.02) ? '\n' : ' ');
  return [
    String(id),
    quoted(`${random.pick(ADJECTIVES)} ${random.pick(NOUNS)}`),
    quoted(random.pick(SLOGANS)),
    quoted(description),
    quoted(random.pick(CATEGORIES)),
    price(random),
  ];
}

export function featureFields(random: SeededRandom, id: number, productId: number): string[] {
  const [feature, values] = random.pick(FEATURES);
  const value = random.pick(values);
  return [String(id), String(productId), quoted(feature), value === 'null' ? 'null' : quoted(value)];
}

export function styleFields(random: SeededRandom, id: number, productId: number, isDefault: boolean): string[] {
  const original = random.int(20, 999);
  const sale = random.chance(0.6) ? 'null' : String(random.int(5, original));
  return [
    String(id),
    String(productId),
    quoted(`${random.pick(COLOURS)} & ${random.pick(COLOURS)}`),
    sale,
    String(original),
    isDefault ? '1' : '0',
  ];
}

export function photoFields(random: SeededRandom, id: number, styleId: number): string[] {
  const url = `https://images.unsplash.com/photo-${random.pick(PHOTO_IDS)}?ixlib=rb-1.2.1&ixid=eyJhcHBfaWQiOjEyMDd9&auto=format&fit=crop`;
  return [String(id), String(styleId), quoted(`${url}&w=668&q=80`), quoted(`${url}&w=300&q=80`)];
}

export function skuFields(random: SeededRandom, id: number, styleId: number, shoes: boolean): string[] {
  const size = shoes ? random.pick(SHOE_SIZES) : quoted(random.pick(CLOTHING_SIZES));
  return [String(id), String(styleId), size, String(random.int(0, 60))];
}

export function relatedFields(id: number, productId: number, relatedProductId: number): string[] {
  return [String(id), String(productId), String(relatedProductId)];
}
