/* kernel/uart.h: polled 16550A UART (PC COM ports), the appliance's console. */
#ifndef WS_UART_H
#define WS_UART_H

#include <stdbool.h>
#include <stdint.h>

/* uart_present: a 16550 answers at port: LSR is not all-ones and the scratch register keeps
 * what is written to it. Any core, before the port is used. */
bool uart_present(uint16_t port);
/* uart_init: 8N1 at `baud`, FIFOs on, interrupts off. Any core, before the console is used. */
void uart_init(uint16_t port, uint32_t baud);
/* uart_putc: wait (bounded) for room in the transmitter, then send one byte. */
void uart_putc(uint16_t port, uint8_t c);
/* uart_tx_fifo_room: bytes that can be written now without waiting: the whole 16-byte FIFO
 * when the transmitter holding register reports empty, else 0. Never blocks. */
unsigned uart_tx_fifo_room(uint16_t port);
/* uart_putc_nowait: write one byte; only after uart_tx_fifo_room said there is room. */
void uart_putc_nowait(uint16_t port, uint8_t c);
/* uart_getc: one received byte, or -1 if none is waiting. Never blocks. */
int uart_getc(uint16_t port);

#endif
