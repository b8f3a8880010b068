export const agent = (input) => input
