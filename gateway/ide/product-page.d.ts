export declare const PRODUCT_PAGE_QUERY: string;
export declare function productPageBody(id: number | string): string;
