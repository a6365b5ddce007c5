package main

import "fmt"

func (o *oracle) mutate(req request) (answer, error)  { return nil, fmt.Errorf("todo") }
func (o *oracle) compile(req request) (answer, error) { return nil, fmt.Errorf("todo") }
